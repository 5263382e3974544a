import { Router } from 'express';
import { z } from 'zod';
import type { SearchIndex } from '../index/ports';
import { TaskResultStatus } from '../model/statuses';
import { ApiError, notFound } from '../services/errors';
import type { TaskService } from '../services/task-service';
import type { WorkflowService } from '../services/workflow-service';
import type { ExecutionStore } from '../store/ports';
import { checkName, listParam, parseBody, sendJson, sendText, strParam } from './params';
import { clientOf } from './client-identity';
import type { WorkerCalls } from './worker-calls';
import { loadHits, searchRequestOf } from './search';
import { EXTERNAL_STORAGE_PATHS, externalStorageLocation } from './external-storage';
import { requeueByType } from '../services/requeue';

const jsonObject = z.record(z.string(), z.unknown());

// /api/tasks (and the interface's /api/task): poll, update, task reads, queues, logs.

export function taskRouter(deps: { tasks: TaskService; workflows: WorkflowService; store: ExecutionStore; index: SearchIndex; calls: WorkerCalls }): Router {
  const { tasks, workflows, store, calls } = deps;
  const r = Router();

  const abortOnClose = (req: import('express').Request): AbortSignal => {
    const ac = new AbortController();
    req.on('close', () => ac.abort());
    return ac.signal;
  };

  r.get('/poll/batch/:taskType', async (req, res) => {
    sendJson(res, await calls.pollBatch(req.params.taskType, req, abortOnClose(req), clientOf(req)));
  });

  r.get('/poll/:taskType', async (req, res) => {
    const workerId = strParam(req, 'workerid');
    const domain = strParam(req, 'domain') || undefined;
    checkName('taskType', req.params.taskType);
    if (workerId !== undefined) checkName('workerid', workerId);
    if (domain !== undefined) checkName('domain', domain);
    const [t] = await tasks.poll(req.params.taskType, { workerId, domain, count: 1, timeoutMs: 100, signal: abortOnClose(req), client: clientOf(req) });
    if (!t) res.status(204).end();
    else sendJson(res, t);
  });

  r.post('/', async (req, res) => {
    sendText(res, await calls.update(req.body));
  });

  r.post('/update-v2', async (req, res) => {
    const next = await calls.updateV2(req.body);
    if (!next) res.status(204).end();
    else sendJson(res, next);
  });

  r.get('/search', async (req, res) => {
    res.json(await deps.index.searchTasks(searchRequestOf(req, 'task')));
  });

  r.get('/search-v2', async (req, res) => {
    const hits = await deps.index.searchTasks(searchRequestOf(req, 'task'));
    res.json(await loadHits(hits, hits.results.map((t) => t.taskId), (id) => tasks.getTask(id)));
  });

  r.post('/queue/requeue/:taskType', async (req, res) => {
    sendText(res, String(await requeueByType(deps, req.params.taskType)));
  });

  // Conductor 2.x clients acknowledge each polled task; a poll already claims it, so this only says whether the task exists.
  r.post('/:taskId/ack', async (req, res) => {
    sendText(res, String((await store.getTask(req.params.taskId)) !== undefined));
  });

  r.get('/queue/all', async (_req, res) => {
    const out: Record<string, number> = {};
    for (const name of await tasks.knownQueues()) out[name] = await tasks.queueSizeByName(name);
    res.json(out);
  });

  r.get('/queue/all/verbose', async (_req, res) => {
    const out: Record<string, Record<string, { size: number; uacked: number }>> = {};
    for (const name of await tasks.knownQueues()) out[name] = await tasks.queueShards(name);
    res.json(out);
  });

  r.get('/queue/sizes', async (req, res) => {
    const out: Record<string, number> = {};
    for (const t of listParam(req, 'taskType')) out[t] = await tasks.queueSize({ taskType: t });
    res.json(out);
  });

  r.get('/queue/size', async (req, res) => {
    const taskType = strParam(req, 'taskType');
    if (!taskType) throw new ApiError(400, "Required query parameter 'taskType' is missing");
    res.json(await tasks.queueSize({ taskType, domain: strParam(req, 'domain') || undefined, isolationGroupId: strParam(req, 'isolationGroupId') || undefined, executionNameSpace: strParam(req, 'executionNamespace') || undefined }));
  });

  r.get('/queue/polldata', async (req, res) => {
    const taskType = strParam(req, 'taskType');
    if (!taskType) throw new ApiError(400, "Required query parameter 'taskType' is missing");
    res.json(await tasks.listPollData(taskType));
  });

  r.get('/queue/polldata/all', async (_req, res) => {
    res.json(await tasks.listPollData());
  });

  r.post('/:taskId/log', async (req, res) => {
    if (!(await store.getTask(req.params.taskId))) throw notFound(`No such task found by id: ${req.params.taskId}`);
    const log = typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? '');
    await store.appendTaskLogs([{ taskId: req.params.taskId, log, createdTime: Date.now() }]);
    res.status(200).end();
  });

  r.get('/:taskId/log', async (req, res) => {
    const logs = await store.taskLogs(req.params.taskId);
    if (logs.length === 0) return void res.status(204).end();
    res.json(logs);
  });

  r.get(EXTERNAL_STORAGE_PATHS, (req) => externalStorageLocation(req));

  r.get('/:taskId', async (req, res) => {
    const t = await tasks.getTask(req.params.taskId);
    if (!t) throw notFound(`No such task found by id: ${req.params.taskId}`);
    res.json(t);
  });

  const byRef = async (workflowId: string, ref: string, statusText: string, body: unknown, workerId?: string): Promise<string | null> => {
    const status = TaskResultStatus.safeParse(statusText);
    if (!status.success) throw new ApiError(400, `Invalid task status '${statusText}'; expected one of ${TaskResultStatus.options.join(', ')}`);
    const output = body === undefined || body === '' ? {} : parseBody(jsonObject, body, 'output');
    return workflows.completeTask(workflowId, { ref, status: status.data, output, workerId });
  };

  r.post('/:workflowId/:taskRefName/:status', async (req, res) => {
    const id = await byRef(req.params.workflowId, req.params.taskRefName, req.params.status, req.body, strParam(req, 'workerid'));
    sendText(res, id ?? '');
  });

  r.post('/:workflowId/:taskRefName/:status/sync', async (req, res) => {
    const id = await byRef(req.params.workflowId, req.params.taskRefName, req.params.status, req.body, strParam(req, 'workerid'));
    if (!id) throw notFound(`No pending task ${req.params.taskRefName} in workflow ${req.params.workflowId}`);
    res.json(await workflows.get(req.params.workflowId, true));
  });

  return r;
}

/** /api/queue: completing a HUMAN task by reference or id (Conductor's QueueAdminResource); the body becomes the task output. */
export function queueRouter(workflows: WorkflowService): Router {
  const r = Router();
  const update = async (workflowId: string, target: { ref?: string; taskId?: string }, statusText: string, body: unknown): Promise<void> => {
    const status = TaskResultStatus.safeParse(statusText);
    if (!status.success) throw new ApiError(400, `Invalid task status '${statusText}'; expected one of ${TaskResultStatus.options.join(', ')}`);
    const output = body === undefined ? {} : parseBody(jsonObject, body, 'output');
    const id = await workflows.completeTask(workflowId, { ...target, status: status.data, output });
    if (!id) throw notFound(`No pending task ${target.ref ?? target.taskId} in workflow ${workflowId}`);
  };
  r.post('/update/:workflowId/task/:taskId/:status', async (req, res) => {
    await update(req.params.workflowId, { taskId: req.params.taskId }, req.params.status, req.body);
    res.status(200).end();
  });
  r.post('/update/:workflowId/:taskRefName/:status', async (req, res) => {
    await update(req.params.workflowId, { ref: req.params.taskRefName }, req.params.status, req.body);
    res.status(200).end();
  });
  return r;
}
