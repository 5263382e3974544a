import type { Request } from 'express';
import { setOwn } from '../lib/own-property';
import { z } from 'zod';
import type { SearchIndex } from '../search/ports';
import {
  IdempotencyStrategySchema,
  RerunWorkflowRequestSchema,
  SkipTaskRequestSchema,
  UpgradeWorkflowRequestSchema,
  PrioritySchema,
  type IdempotencyStrategy,
} from '../model/requests';
import { WorkflowSchema } from '../model/execution';
import { BULK_MAX } from '../model/bulk';
import { WorkflowStatus } from '../model/statuses';
import { intQuery, range, requiredText, type Handler, type RouteTable } from './route-table';
import type { Workflow } from '../model/execution';
import { ApiError } from '../services/errors';
import { Errors } from '../model/named-errors';
import type { MetadataService } from '../services/metadata-service';
import type { ExecutionStore } from '../store/ports';
import type { WorkflowService } from '../services/workflow-service';
import { boolParam, intParam, parseBody, sendText, strParam } from './params';
import { jsonBody } from './request-body';
import { loadHits, SEARCH_QUERY, searchRequestOf } from './search';
import type { ExternalPayloads } from '../objects/external-payloads';
import { EXTERNAL_STORAGE_PATHS, WORKFLOW_EXTERNAL_STORAGE_DOC, externalStorageLocation } from './external-storage';
import { summarizeWorkflow } from '../search/summaries';
import { WORKER_BODIES, type WorkerCalls } from './worker-calls';
import { grantCheckOf } from '../auth/request-gate';

/** Each id is one store query: as many as a bulk request may name, no more. */
const CorrelationIdListSchema = z.array(z.string()).max(BULK_MAX, `Cannot search more than ${BULK_MAX} correlation ids. Please use multiple requests.`);

const jsonObject = z.record(z.string(), z.unknown());

// Conductor binds the skip payload from query parameters; Baton also takes a JSON body (null or empty: none).
const SKIP_TASK = jsonBody(SkipTaskRequestSchema.nullable(), 'skipTaskRequest', 'missing-or-empty-text');
const CORRELATION_IDS = jsonBody(CorrelationIdListSchema, 'correlationIds');
const INPUT = jsonBody(jsonObject, 'input', 'missing');
const RERUN = jsonBody(RerunWorkflowRequestSchema, 'rerunWorkflowRequest', 'missing');
const UPGRADE = jsonBody(UpgradeWorkflowRequestSchema, 'upgradeWorkflowRequest');

/** Orkes takes the idempotency key of a start by name from headers: X-Idempotency-key and X-on-conflict (the strategy). */
function idempotencyHeaders(req: Request): { idempotencyKey?: string; idempotencyStrategy?: IdempotencyStrategy } {
  const key = req.get('X-Idempotency-key');
  if (!key) return {};
  const strategy = req.get('X-on-conflict');
  if (!strategy) return { idempotencyKey: key };
  const parsed = IdempotencyStrategySchema.safeParse(strategy);
  if (!parsed.success) throw Errors.IDEMPOTENCY_STRATEGY_INVALID(strategy, IdempotencyStrategySchema.options.join(', '));
  return { idempotencyKey: key, idempotencyStrategy: parsed.data };
}

// /api/workflow: start, read, search and manage executions (Conductor's WorkflowResource).

/** Declares the routes under `r` (mounted at /api/workflow, after the bulk and execution routes). */
/** A page of an execution's tasks: Conductor's default of 15. */
const TASK_PAGE = { start: intQuery({ min: 0, fallback: 0 }), count: intQuery({ min: 0, fallback: 15 }) };

export function workflowRoutes(
  r: RouteTable,
  deps: { workflows: WorkflowService; store: ExecutionStore; index: SearchIndex; metadata: MetadataService; calls: WorkerCalls; payloads?: ExternalPayloads },
): void {
  const { workflows, store, index } = deps;

  const loadMany = async (ids: string[], includeTasks: boolean): Promise<Workflow[]> => {
    const out: Workflow[] = [];
    for (const id of ids) {
      const w = await workflows.get(id, includeTasks).catch(() => undefined);
      if (w) out.push(w);
    }
    return out.sort((a, b) => a.createTime - b.createTime);
  };

  r.post(
    '/',
    { permission: 'executions:start', summary: 'Start an execution; answers its id', body: WORKER_BODIES.start, res: 'text', hot: 'start' },
    async (req, res) => {
      sendText(res, await deps.calls.start(req.body, grantCheckOf(req)));
    },
  );

  r.get(
    '/search',
    { permission: 'executions:read', summary: 'Search executions', query: SEARCH_QUERY, res: 'SearchResultWorkflowSummary' },
    async (req, res) => {
      res.json(await index.searchWorkflows(searchRequestOf(req, 'workflow')));
    },
  );

  // The -v2 forms answer the executions themselves (without tasks); the by-tasks forms run the query
  // over task records and answer each matching task's execution once.
  const execution = (id: string) => workflows.get(id, false).catch(() => undefined);
  r.get(
    '/search-v2',
    { permission: 'executions:read', summary: 'Search executions; answers the executions (without tasks)', query: SEARCH_QUERY, res: 'SearchResultWorkflow' },
    async (req, res) => {
      const hits = await index.searchWorkflows(searchRequestOf(req, 'workflow'));
      res.json(
        await loadHits(
          hits,
          hits.results.map((w) => w.workflowId),
          execution,
        ),
      );
    },
  );
  const byTasks = async (req: Request) => {
    const hits = await index.searchTasks(searchRequestOf(req, 'task'));
    return loadHits(hits, [...new Set(hits.results.map((t) => t.workflowId))], execution);
  };
  r.get(
    '/search-by-tasks',
    {
      permission: 'executions:read',
      summary: 'Search task records; answers the summaries of their executions, each once',
      query: SEARCH_QUERY,
      res: 'SearchResultWorkflowSummary',
    },
    async (req, res) => {
      const found = await byTasks(req);
      res.json({ totalHits: found.totalHits, results: found.results.map(summarizeWorkflow) });
    },
  );
  r.get(
    '/search-by-tasks-v2',
    {
      permission: 'executions:read',
      summary: 'Search task records; answers their executions (without tasks), each once',
      query: SEARCH_QUERY,
      res: 'SearchResultWorkflow',
    },
    async (req, res) => {
      res.json(await byTasks(req));
    },
  );

  r.get(
    '/running/{name}',
    {
      permission: 'executions:read',
      summary: 'Ids of running executions of a definition',
      query: { version: 'integer', startTime: 'integer', endTime: 'integer' },
      res: { inline: z.array(z.string()) },
    },
    async (req, res) => {
      const version = intParam(req, 'version', undefined);
      const start = intParam(req, 'startTime', 0)!;
      const end = intParam(req, 'endTime', 0)!;
      let ids = await store.runningWorkflowIds(req.params.name, version);
      if (start > 0 && end > 0) ids = (await loadMany(ids, false)).filter((w) => w.createTime >= start && w.createTime <= end).map((w) => w.workflowId);
      res.json(ids);
    },
  );

  const correlated = async (req: Request, name: string, correlationId: string): Promise<Workflow[]> => {
    const ids = await store.workflowIdsByCorrelationId(name, correlationId, boolParam(req, 'includeClosed', false));
    return loadMany(ids, boolParam(req, 'includeTasks', false));
  };
  const correlatedQuery = { includeClosed: 'boolean', includeTasks: 'boolean' } as const;
  const correlatedDoc = {
    permission: 'executions:read',
    summary: 'Executions of a definition with a correlation id',
    query: correlatedQuery,
    res: { list: 'Workflow' },
  } as const;
  r.get('/running/{name}/correlated/{correlationId}', correlatedDoc, async (req, res) => {
    res.json(await correlated(req, req.params.name, req.params.correlationId));
  });

  r.put('/decide/{workflowId}', { permission: 'executions:manage', summary: 'Re-evaluate an execution', res: 'empty' }, async (req, res) => {
    await workflows.reevaluate(req.params.workflowId);
    res.status(200).end();
  });

  const skip: Handler<z.output<typeof SKIP_TASK.schema>> = async (req, res) => {
    const params = req.params as Record<string, string | undefined>;
    const workflowId = params.workflowId ?? strParam(req, 'workflowId');
    const ref = params.taskReferenceName ?? strParam(req, 'taskReferenceName');
    if (!workflowId || !ref) throw Errors.SKIP_TARGET_REQUIRED();
    let payload: z.infer<typeof SkipTaskRequestSchema> = {};
    if (req.body && Object.keys(req.body).length > 0) payload = req.body;
    else {
      const fromQuery = (k: string): Record<string, unknown> | undefined => {
        const v = strParam(req, k);
        if (!v) return undefined;
        try {
          return parseBody(jsonObject, JSON.parse(v), k);
        } catch (e) {
          if (e instanceof ApiError) throw e;
          throw Errors.QUERY_PARAM_NOT_JSON_OBJECT(k);
        }
      };
      payload = { taskInput: fromQuery('taskInput'), taskOutput: fromQuery('taskOutput') };
    }
    await workflows.skipTask(workflowId, ref, payload.taskInput, payload.taskOutput);
    res.status(200).end();
  };
  r.put(
    '/skiptask',
    {
      permission: 'executions:manage',
      summary: 'Skip a task (ids in the query)',
      query: { workflowId: requiredText, taskReferenceName: requiredText, taskInput: 'string', taskOutput: 'string' },
      body: SKIP_TASK,
      res: 'empty',
    },
    skip,
  );
  r.put(
    '/{workflowId}/skiptask/{taskReferenceName}',
    {
      permission: 'executions:manage',
      summary: 'Skip a task',
      query: { taskInput: 'string', taskOutput: 'string' },
      body: SKIP_TASK,
      res: 'empty',
    },
    skip,
  );

  r.post(
    '/{name}/correlated',
    {
      permission: 'executions:read',
      summary: 'Executions by correlation id, for each id given',
      query: correlatedQuery,
      body: CORRELATION_IDS,
      res: { inline: z.record(z.string(), z.array(WorkflowSchema)) },
    },
    async (req, res) => {
      const out: Record<string, Workflow[]> = {};
      for (const id of req.body) setOwn(out, id, await correlated(req, req.params.name, id));
      res.json(out);
    },
  );

  r.get('/{name}/correlated/{correlationId}', correlatedDoc, async (req, res) => {
    res.json(await correlated(req, req.params.name, req.params.correlationId));
  });

  // `/:workflowId` as GET and DELETE spell it (one template for the document), read here as the definition name.
  // Conductor's POST /workflow/{name} and GET/DELETE /workflow/{workflowId} are one path: the template takes one name.
  r.post(
    '/{workflowId}',
    {
      permission: 'executions:start',
      summary: 'Start an execution of a definition with the body as input; answers its id',
      pathParams: { workflowId: { description: 'the name of the workflow definition to start' } },
      query: { version: 'integer', correlationId: 'string', priority: range(0, 99) },
      body: INPUT,
      res: 'text',
    },
    async (req, res) => {
      const input = req.body;
      const priority = intParam(req, 'priority', 0);
      const p = PrioritySchema.safeParse(priority);
      if (!p.success) throw Errors.PRIORITY_INVALID(p.error.issues[0]!.message, priority);
      const request = {
        name: req.params.workflowId,
        version: intParam(req, 'version', undefined),
        correlationId: strParam(req, 'correlationId'),
        priority,
        input,
        ...idempotencyHeaders(req),
      };
      sendText(res, await workflows.start(request));
    },
  );

  r.get(EXTERNAL_STORAGE_PATHS, WORKFLOW_EXTERNAL_STORAGE_DOC, async (req, res) => void res.json(await externalStorageLocation(req, deps.payloads)));

  r.get('/{workflowId}', { permission: 'executions:read', summary: 'An execution', query: { includeTasks: 'boolean' }, res: 'Workflow' }, async (req, res) => {
    res.json(await workflows.get(req.params.workflowId, boolParam(req, 'includeTasks', true)));
  });

  r.get(
    '/{workflowId}/status',
    {
      permission: 'executions:read',
      summary: 'Status of an execution',
      query: { includeOutput: 'boolean', includeVariables: 'boolean' },
      res: {
        inline: z.object({
          workflowId: z.string(),
          correlationId: z.string().optional(),
          output: jsonObject.optional(),
          variables: jsonObject.optional(),
          status: WorkflowStatus,
        }),
      },
    },
    async (req, res) => {
      const w = await workflows.get(req.params.workflowId, false);
      res.json({
        workflowId: w.workflowId,
        ...(w.correlationId ? { correlationId: w.correlationId } : {}),
        ...(boolParam(req, 'includeOutput', false) ? { output: w.output } : {}),
        ...(boolParam(req, 'includeVariables', false) ? { variables: w.variables } : {}),
        status: w.status,
      });
    },
  );

  r.get(
    '/{workflowId}/tasks',
    {
      permission: 'executions:read',
      summary: 'Tasks of an execution, a page at a time',
      query: { ...TASK_PAGE, status: 'list' },
      res: 'SearchResultTask',
    },
    async (req, res) => {
      const w = await workflows.get(req.params.workflowId, true);
      const statuses = ([] as string[]).concat((req.query.status as string | string[] | undefined) ?? []).map((s) => s.toUpperCase());
      const all = statuses.length ? w.tasks.filter((t) => statuses.includes(t.status)) : w.tasks;
      const start = TASK_PAGE.start.read(req, 'start');
      const count = TASK_PAGE.count.read(req, 'count');
      res.json({ totalHits: all.length, results: all.slice(start, start + count) });
    },
  );

  r.delete(
    '/{workflowId}',
    { permission: 'executions:manage', summary: 'Terminate an execution', query: { reason: 'string' }, res: 'empty' },
    async (req, res) => {
      await workflows.terminate(req.params.workflowId, strParam(req, 'reason'));
      res.status(200).end();
    },
  );

  r.delete(
    '/{workflowId}/remove',
    { permission: 'executions:manage', summary: 'Remove an execution', query: { archiveWorkflow: 'boolean' }, res: 'empty' },
    async (req, res) => {
      await workflows.remove(req.params.workflowId, boolParam(req, 'archiveWorkflow', true));
      res.status(200).end();
    },
  );

  r.put('/{workflowId}/pause', { permission: 'executions:manage', summary: 'Pause an execution', res: 'empty' }, async (req, res) => {
    await workflows.pause(req.params.workflowId);
    res.status(200).end();
  });

  r.put('/{workflowId}/resume', { permission: 'executions:manage', summary: 'Resume a paused execution', res: 'empty' }, async (req, res) => {
    await workflows.resume(req.params.workflowId);
    res.status(200).end();
  });

  r.post(
    '/{workflowId}/rerun',
    { permission: 'executions:manage', summary: 'Rerun an ended execution; answers its id', body: RERUN, res: 'text' },
    async (req, res) => {
      sendText(res, String(await workflows.rerun(req.params.workflowId, req.body)));
    },
  );

  r.post(
    '/{workflowId}/upgrade',
    {
      permission: 'executions:manage',
      summary: 'Move a running execution to another version of its definition (Orkes); tasks the version adds before the current position are SKIPPED',
      body: UPGRADE,
      res: 'empty',
    },
    async (req, res) => {
      await workflows.upgrade(req.params.workflowId, req.body);
      res.status(200).end();
    },
  );

  r.post(
    '/{workflowId}/restart',
    { permission: 'executions:manage', summary: 'Restart an ended execution', query: { useLatestDefinitions: 'boolean' }, res: 'empty', status: 204 },
    async (req, res) => {
      await workflows.restart(req.params.workflowId, boolParam(req, 'useLatestDefinitions', false));
      res.status(204).end();
    },
  );

  r.post(
    '/{workflowId}/resetcallbacks',
    { permission: 'executions:manage', summary: 'Make scheduled worker tasks waiting for callbackAfterSeconds pollable now', res: 'empty', status: 204 },
    async (req, res) => {
      await workflows.resetCallbacks(req.params.workflowId);
      res.status(204).end();
    },
  );

  r.post(
    '/{workflowId}/retry',
    {
      permission: 'executions:manage',
      summary: 'Retry a failed execution from its failed tasks',
      query: { resumeSubworkflowTasks: 'boolean' },
      res: 'empty',
      status: 204,
    },
    async (req, res) => {
      await workflows.retry(req.params.workflowId, boolParam(req, 'resumeSubworkflowTasks', false));
      res.status(204).end();
    },
  );
}
