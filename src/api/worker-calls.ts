import type { GrantCheck } from '../auth/request-gate';
import type { Task } from '../model/execution';
import { StartWorkflowRequestSchema, TaskResultSchema, type StartWorkflowRequest, type TaskResult } from '../model/requests';
import { Errors } from '../model/named-errors';
import type { TaskService } from '../services/task-service';
import { revealForWorker } from '../services/polled-task-secrets';
import { conformingInputs } from '../services/polled-task-schemas';
import type { SecretService } from '../services/secret-service';
import type { WorkflowService } from '../services/workflow-service';
import type { ExecutionStore } from '../store/ports';
import type { SchemaEnforcer } from '../services/schema-enforcer';
import { checkName, intParam, strParam, type WithQuery } from './params';
import { range, type HotCall, type RouteDoc } from './route-table';
import { jsonBody, type JsonBody } from './request-body';
import { taskView } from '../model/payload-view';
import type { ExternalPayloads } from '../objects/external-payloads';

// The calls workers and starters make thousands of times a second. Both front ends answer them
// through these functions: the express routes and the hot path (hot-path.ts), each with the body
// its route declares already parsed.

/** A batch poll's limits: tasks per poll, and how long (ms) a long poll waits; what an absent parameter means. */
export const POLL_LIMITS = { count: { fallback: 1, min: 1, max: 1000 }, timeout: { fallback: 100, min: 0, max: 5000 } } as const;

/** The batch poll's query as the route table documents it. */
export const POLL_BATCH_QUERY: NonNullable<RouteDoc['query']> = {
  workerid: 'string',
  domain: 'string',
  count: range(POLL_LIMITS.count.min, POLL_LIMITS.count.max),
  timeout: range(POLL_LIMITS.timeout.min, POLL_LIMITS.timeout.max),
};

/** The bodies of the hot calls: their routes declare them, and the hot path parses with the same declarations. */
export const WORKER_BODIES = {
  update: jsonBody(TaskResultSchema, 'taskResult'),
  updateV2: jsonBody(TaskResultSchema, 'taskResult'),
  start: jsonBody(StartWorkflowRequestSchema, 'startWorkflowRequest'),
} as const satisfies Record<Exclude<HotCall, 'pollBatch'>, JsonBody>;

export interface WorkerCalls {
  /** GET /api/tasks/poll/batch/{taskType}: `signal` aborts the long poll when the client goes away; `client` is clientOf the request. */
  pollBatch(taskType: string, req: WithQuery, signal: AbortSignal, client?: string): Promise<Task[]>;
  /** POST /api/tasks: answers the task id. */
  update(result: TaskResult): Promise<string>;
  /** POST /api/tasks/update-v2: answers the next task of the same type and domain, if one is waiting. */
  updateV2(result: TaskResult): Promise<Task | undefined>;
  /** POST /api/workflow: answers the new workflow id; `check` is the gate's grant check of the request (grantCheckOf). */
  start(request: StartWorkflowRequest, check?: GrantCheck): Promise<string>;
}

export function workerCalls(deps: {
  tasks: TaskService;
  workflows: WorkflowService;
  store: ExecutionStore;
  schemaEnforcer?: SchemaEnforcer;
  secrets?: SecretService;
  payloads?: ExternalPayloads;
}): WorkerCalls {
  const { tasks, workflows, store, secrets, payloads } = deps;
  // A result naming externalOutputPayloadStoragePath carries the payload there (read and checked before anything changes).
  const withOutput = async (result: TaskResult): Promise<TaskResult> => {
    const path = result.externalOutputPayloadStoragePath?.trim();
    if (!path || !payloads) return result;
    return { ...result, outputData: await payloads.read(path, 'externalOutputPayloadStoragePath', payloads.settings.taskMaxBytes) };
  };
  // A COMPLETED result whose output breaks its task definition's output schema is applied as FAILED.
  const checked = async (parsed: TaskResult): Promise<TaskResult> => {
    const result = await withOutput(parsed);
    return deps.schemaEnforcer ? deps.schemaEnforcer.checkTaskResult(result) : result;
  };
  // What a worker receives: tasks whose input fits their input schema, with their secrets filled in.
  // An input kept outside the row is handed out as Conductor does: empty, beside its path (the worker downloads it).
  const handOut = async (polled: Task[]): Promise<Task[]> =>
    (await revealForWorker(await conformingInputs(polled, deps.schemaEnforcer, tasks), secrets, tasks)).map(taskView);

  // Once the update is applied: a refused one (unknown task or workflow, a payload too large) leaves no log lines
  // behind, and one ignored because the task had ended adds none either (Conductor's WorkflowExecutor.updateTask).
  const appendLogs = async (result: TaskResult, outcome: 'applied' | 'ignored'): Promise<void> => {
    if (outcome === 'applied' && result.logs?.length)
      await store.appendTaskLogs(result.logs.slice(0, 10).map((l) => ({ ...l, taskId: result.taskId, createdTime: l.createdTime ?? Date.now() })));
  };

  return {
    async pollBatch(taskType, req, signal, client) {
      checkName('taskType', taskType);
      const { count: c, timeout: t } = POLL_LIMITS;
      const count = intParam(req, 'count', c.fallback, c.min, c.max)!;
      const timeout = req.query.timeout;
      if (timeout !== undefined && Number(timeout) > t.max) throw Errors.LONG_POLL_TIMEOUT_TOO_LONG(t.max / 1000);
      const timeoutMs = intParam(req, 'timeout', t.fallback, t.min, t.max)!;
      const workerId = strParam(req, 'workerid');
      const domain = strParam(req, 'domain') || undefined;
      if (workerId !== undefined) checkName('workerid', workerId);
      if (domain !== undefined) checkName('domain', domain);
      return handOut(await tasks.poll(taskType, { workerId, domain, count, timeoutMs, signal, client }));
    },

    async update(reported) {
      const result = await checked(reported);
      await appendLogs(result, await tasks.update(result));
      return result.taskId;
    },

    async updateV2(reported) {
      const result = await checked(reported);
      const done = await tasks.updateAndPollNext(result);
      await appendLogs(result, done.outcome);
      if (!done.next) return undefined;
      const [next] = await handOut([done.next]);
      return next;
    },

    async start(request, check) {
      await check?.({ type: 'WORKFLOW_DEF', id: request.name }, 'EXECUTE');
      return workflows.start(request);
    },
  };
}
