import { z } from 'zod';
import { setOwn } from '../lib/own-property';
import { revealForWorker } from '../services/polled-task-secrets';
import type { SecretService } from '../services/secret-service';
import type { SearchIndex } from '../search/ports';
import { TaskResultStatus } from '../model/statuses';
import type { TaskService } from '../services/task-service';
import type { WorkflowService } from '../services/workflow-service';
import type { ExecutionStore } from '../store/ports';
import { checkName, listParam, sendJson, sendText, strParam } from './params';
import { clientOf } from './client-identity';
import { POLL_BATCH_QUERY, POLL_LIMITS, WORKER_BODIES, type WorkerCalls } from './worker-calls';
import { loadHits, SEARCH_QUERY, searchRequestOf } from './search';
import { oneOf, requiredText, type Handler, type RouteDoc, type RouteTable } from './route-table';
import type { ExternalPayloads } from '../objects/external-payloads';
import { EXTERNAL_STORAGE_PATHS, TASK_EXTERNAL_STORAGE_DOC, externalStorageLocation } from './external-storage';
import { requeueByType } from '../services/requeue';
import { jsonBody } from './request-body';
import { taskLogLine } from './task-log-body';
import { logLineTooLong, taskLogFull } from '../store/task-log-limits';
import { Errors } from '../model/named-errors';

const jsonObject = z.record(z.string(), z.unknown());

// /api/tasks (and the interface's /api/task): poll, update, task reads, queues, logs.

export interface TaskRouteDeps {
  tasks: TaskService;
  workflows: WorkflowService;
  store: ExecutionStore;
  index: SearchIndex;
  calls: WorkerCalls;
  secrets?: SecretService;
  /** Conductor's external payload storage (absent: its location routes answer 501). */
  payloads?: ExternalPayloads;
}

const statusParam: RouteDoc['pathParams'] = { status: { schema: oneOf(TaskResultStatus.options) } };
const byRefDoc = {
  pathParams: statusParam,
  query: { workerid: 'string' },
  body: jsonBody(jsonObject, 'output', 'missing-or-empty-text'),
} as const;

/** GET a task by id (also served at `/apitasks/{taskId}`). */
export const taskById =
  (deps: Pick<TaskRouteDeps, 'tasks'>): Handler =>
  async (req, res) => {
    const t = await deps.tasks.getTask(req.params.taskId!);
    if (!t) throw Errors.TASK_NOT_FOUND(req.params.taskId);
    res.json(t);
  };

/** Declares the routes under `r` (mounted at /api/tasks and at /api/task). */
export function taskRoutes(r: RouteTable, deps: TaskRouteDeps): void {
  const { tasks, workflows, store, calls } = deps;

  const abortOnClose = (req: import('express').Request<Record<string, string>>): AbortSignal => {
    const ac = new AbortController();
    req.on('close', () => ac.abort());
    return ac.signal;
  };

  r.get(
    '/poll/batch/{taskType}',
    { permission: 'tasks:poll', summary: 'Long-poll up to count tasks', query: POLL_BATCH_QUERY, res: { list: 'Task' }, hot: 'pollBatch' },
    async (req, res) => {
      sendJson(res, await calls.pollBatch(req.params.taskType, req, abortOnClose(req), clientOf(req)));
    },
  );

  r.get(
    '/poll/{taskType}',
    { permission: 'tasks:poll', summary: 'Poll one task (204 when none)', query: { workerid: 'string', domain: 'string' }, res: 'Task', empty: 204 },
    async (req, res) => {
      const workerId = strParam(req, 'workerid');
      const domain = strParam(req, 'domain') || undefined;
      checkName('taskType', req.params.taskType);
      if (workerId !== undefined) checkName('workerid', workerId);
      if (domain !== undefined) checkName('domain', domain);
      const [t] = await revealForWorker(
        await tasks.poll(req.params.taskType, {
          workerId,
          domain,
          count: 1,
          timeoutMs: POLL_LIMITS.timeout.fallback,
          signal: abortOnClose(req),
          client: clientOf(req),
        }),
        deps.secrets,
        tasks,
      );
      if (!t) res.status(204).end();
      else sendJson(res, t);
    },
  );

  r.post(
    '/',
    { permission: 'tasks:update', summary: 'Update a task with its result; answers the task id', body: WORKER_BODIES.update, res: 'text', hot: 'update' },
    async (req, res) => {
      sendText(res, await calls.update(req.body));
    },
  );

  r.post(
    '/update-v2',
    {
      permission: 'tasks:poll',
      summary: 'Update a task, then poll the next of its type (204 when none)',
      body: WORKER_BODIES.updateV2,
      res: 'Task',
      empty: 204,
      hot: 'updateV2',
    },
    async (req, res) => {
      const next = await calls.updateV2(req.body);
      if (!next) res.status(204).end();
      else sendJson(res, next);
    },
  );

  r.get('/search', { permission: 'executions:read', summary: 'Search tasks', query: SEARCH_QUERY, res: 'SearchResultTaskSummary' }, async (req, res) => {
    res.json(await deps.index.searchTasks(searchRequestOf(req, 'task')));
  });

  r.get(
    '/search-v2',
    { permission: 'executions:read', summary: 'Search tasks; answers the tasks themselves', query: SEARCH_QUERY, res: 'SearchResultTask' },
    async (req, res) => {
      const hits = await deps.index.searchTasks(searchRequestOf(req, 'task'));
      res.json(
        await loadHits(
          hits,
          hits.results.map((t) => t.taskId),
          (id) => tasks.getTask(id),
        ),
      );
    },
  );

  r.post(
    '/queue/requeue/{taskType}',
    { permission: 'admin', summary: 'Re-push the scheduled tasks of a type to their queues; answers how many', res: 'text' },
    async (req, res) => {
      sendText(res, String(await requeueByType(deps, req.params.taskType)));
    },
  );

  // Conductor 2.x clients acknowledge each polled task; a poll already claims it, so this only says whether the task exists.
  r.post(
    '/{taskId}/ack',
    {
      permission: 'tasks:poll',
      summary: 'Conductor 2.x acknowledgement: a poll already claims the task; answers whether it exists',
      query: { workerid: 'string' },
      res: 'text',
    },
    async (req, res) => {
      const task = await store.getTask(req.params.taskId);
      // A skipped task's acknowledgement is refused: its worker must not go on with it.
      sendText(res, String(task !== undefined && task.status !== 'SKIPPED'));
    },
  );

  r.get(
    '/queue/all',
    { permission: 'queues:read', summary: 'Size of every queue', res: { inline: z.record(z.string(), z.number().int()) } },
    async (_req, res) => {
      const out: Record<string, number> = {};
      for (const name of await tasks.knownQueues()) setOwn(out, name, await tasks.queueSizeByName(name));
      res.json(out);
    },
  );

  r.get(
    '/queue/all/verbose',
    {
      permission: 'queues:read',
      summary: 'Size and leased count of every queue partition',
      res: { inline: z.record(z.string(), z.record(z.string(), z.object({ size: z.number().int(), uacked: z.number().int() }))) },
    },
    async (_req, res) => {
      const out: Record<string, Record<string, { size: number; uacked: number }>> = {};
      for (const name of await tasks.knownQueues()) setOwn(out, name, await tasks.queueShards(name));
      res.json(out);
    },
  );

  r.get(
    '/queue/sizes',
    { permission: 'queues:read', summary: 'Queue sizes of task types', query: { taskType: 'list' }, res: { inline: z.record(z.string(), z.number().int()) } },
    async (req, res) => {
      const out: Record<string, number> = {};
      for (const t of listParam(req, 'taskType')) setOwn(out, t, await tasks.queueSize({ taskType: t }));
      res.json(out);
    },
  );

  r.get(
    '/queue/size',
    {
      permission: 'queues:read',
      summary: 'Size of one queue',
      query: { taskType: requiredText, domain: 'string', isolationGroupId: 'string', executionNamespace: 'string' },
      res: { inline: z.number().int() },
    },
    async (req, res) => {
      const taskType = strParam(req, 'taskType');
      if (!taskType) throw Errors.TASK_TYPE_REQUIRED();
      res.json(
        await tasks.queueSize({
          taskType,
          domain: strParam(req, 'domain') || undefined,
          isolationGroupId: strParam(req, 'isolationGroupId') || undefined,
          executionNameSpace: strParam(req, 'executionNamespace') || undefined,
        }),
      );
    },
  );

  r.get(
    '/queue/polldata',
    { permission: 'queues:read', summary: 'Last polls of a task type', query: { taskType: requiredText }, res: { list: 'PollData' } },
    async (req, res) => {
      const taskType = strParam(req, 'taskType');
      if (!taskType) throw Errors.TASK_TYPE_REQUIRED();
      res.json(await tasks.listPollData(taskType));
    },
  );

  r.get('/queue/polldata/all', { permission: 'queues:read', summary: 'Last polls of every task type', res: { list: 'PollData' } }, async (_req, res) => {
    res.json(await tasks.listPollData());
  });

  r.post('/{taskId}/log', { permission: 'tasks:update', summary: 'Add a log line to a task', body: 'text', res: 'empty' }, async (req, res) => {
    if (!(await store.getTask(req.params.taskId))) throw Errors.TASK_NOT_FOUND(req.params.taskId);
    const log = taskLogLine(req.body);
    if (log === undefined) throw Errors.BODY_MISSING('the log line');
    const tooLong = logLineTooLong(log, store.taskLogLimits);
    if (tooLong) throw Errors.TASK_LOG_LINE_TOO_LONG(tooLong);
    const stored = await store.appendTaskLogs([{ taskId: req.params.taskId, log, createdTime: Date.now() }]);
    if (stored === 0) throw Errors.TASK_LOG_FULL(taskLogFull(req.params.taskId, store.taskLogLimits));
    res.status(200).end();
  });

  r.get(
    '/{taskId}/log',
    { permission: 'executions:read', summary: 'Log lines of a task (204 when none)', res: { list: 'TaskExecLog' }, empty: 204 },
    async (req, res) => {
      const logs = await store.taskLogs(req.params.taskId);
      if (logs.length === 0) return void res.status(204).end();
      res.json(logs);
    },
  );

  r.get(EXTERNAL_STORAGE_PATHS, TASK_EXTERNAL_STORAGE_DOC, async (req, res) => void res.json(await externalStorageLocation(req, deps.payloads)));

  r.get('/{taskId}', { permission: 'executions:read', summary: 'A task', res: 'Task' }, taskById(deps));

  const byRef = async (workflowId: string, ref: string, statusText: string, output: Record<string, unknown>, workerId?: string): Promise<string | null> => {
    const status = TaskResultStatus.safeParse(statusText);
    if (!status.success) throw Errors.TASK_STATUS_INVALID(statusText, TaskResultStatus.options.join(', '));
    return workflows.completeTask(workflowId, { ref, status: status.data, output, workerId });
  };

  r.post(
    '/{workflowId}/{taskRefName}/{status}',
    { permission: 'tasks:update', summary: 'Update a pending task by reference, merging the body into its output; answers its id', ...byRefDoc, res: 'text' },
    async (req, res) => {
      const id = await byRef(req.params.workflowId, req.params.taskRefName, req.params.status, req.body, strParam(req, 'workerid'));
      sendText(res, id ?? '');
    },
  );

  r.post(
    '/{workflowId}/{taskRefName}/{status}/sync',
    { permission: 'tasks:update', summary: 'Update a pending task by reference; answers the execution', ...byRefDoc, res: 'Workflow' },
    async (req, res) => {
      const id = await byRef(req.params.workflowId, req.params.taskRefName, req.params.status, req.body, strParam(req, 'workerid'));
      if (!id) throw Errors.PENDING_TASK_NOT_FOUND(req.params.taskRefName, req.params.workflowId);
      res.json(await workflows.get(req.params.workflowId, true));
    },
  );
}

/** /api/queue: completing a HUMAN task by reference or id (Conductor's QueueAdminResource); the body becomes the task output. */
export function queueRoutes(r: RouteTable, deps: { workflows: WorkflowService }): void {
  const byId = { pathParams: statusParam, body: jsonBody(jsonObject, 'output', 'missing') } as const;
  const update = async (workflowId: string, target: { ref?: string; taskId?: string }, statusText: string, output: Record<string, unknown>): Promise<void> => {
    const status = TaskResultStatus.safeParse(statusText);
    if (!status.success) throw Errors.TASK_STATUS_INVALID(statusText, TaskResultStatus.options.join(', '));
    const id = await deps.workflows.completeTask(workflowId, { ...target, status: status.data, output });
    if (!id) throw Errors.PENDING_TASK_NOT_FOUND(String(target.ref ?? target.taskId), workflowId);
  };
  r.post(
    '/update/{workflowId}/task/{taskId}/{status}',
    { permission: 'tasks:update', summary: 'Complete a pending task by id with the body as output', ...byId, res: 'empty' },
    async (req, res) => {
      await update(req.params.workflowId, { taskId: req.params.taskId }, req.params.status, req.body);
      res.status(200).end();
    },
  );
  r.post(
    '/update/{workflowId}/{taskRefName}/{status}',
    { permission: 'tasks:update', summary: 'Complete a pending task by reference with the body as output', ...byId, res: 'empty' },
    async (req, res) => {
      await update(req.params.workflowId, { ref: req.params.taskRefName }, req.params.status, req.body);
      res.status(200).end();
    },
  );
}
