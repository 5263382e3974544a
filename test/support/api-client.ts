import type { TaskStatus, WorkflowStatus } from '../../src/model/statuses';
import { call, eventually, type Reply } from './baton';
import { uniqueName } from './names';

// One client for the tests that drive Baton's REST API over real HTTP: the calls those tests make
// again and again (register, start, poll, complete, wait for a status), each checking its answer.

/** A task as the API returns it (in an execution or from a poll); the fields tests read most, plus any other. */
export interface TaskView {
  taskId: string;
  workflowInstanceId: string;
  referenceTaskName: string;
  taskType: string;
  status: TaskStatus;
  inputData: Record<string, any>;
  outputData: Record<string, any>;
  [field: string]: any;
}

/** An execution as `GET /api/workflow/{id}` returns it. */
export interface WorkflowView {
  workflowId: string;
  workflowName: string;
  status: WorkflowStatus;
  input: Record<string, any>;
  output: Record<string, any>;
  tasks: TaskView[];
  [field: string]: any;
}

export type Json = Record<string, unknown>;

/** What `taskOf` needs of a task: the API's answer and the SDK's Task type both fit. */
interface TaskLike {
  referenceTaskName?: string;
  taskType?: string;
  status?: string;
}

/** `[referenceTaskName, taskType, status]` per task, in task-list order. */
export function taskRows(wf: { tasks?: TaskLike[] }): Array<[string, string, string]> {
  return (wf.tasks ?? []).map((t) => [String(t.referenceTaskName), String(t.taskType), String(t.status)]);
}

/** The task with reference `ref` (latest attempt), or a thrown error naming what is there. */
export function taskOf<T extends TaskLike>(wf: { tasks?: T[] }, ref: string): T {
  const found = (wf.tasks ?? []).filter((t) => t.referenceTaskName === ref);
  const t = found[found.length - 1];
  if (!t) throw new Error(`no task ${ref} in ${JSON.stringify(taskRows(wf))}`);
  return t;
}

export interface PollOptions {
  workerId?: string;
  domain?: string;
}

export interface CompleteOptions {
  /** The result status; COMPLETED unless given. */
  status?: TaskStatus;
  /** Further fields of the result (reasonForIncompletion, callbackAfterSeconds, logs, …). */
  extra?: Json;
}

export interface ApiClient {
  /** The base URL the next request goes to. */
  url(): string;
  /** Any call, answered as is (no check). */
  call<T = any>(method: string, path: string, body?: unknown, opts?: Parameters<typeof call>[4]): Promise<Reply<T>>;
  /** A name unique within this process. */
  uniq(prefix: string): string;
  /** Registers a workflow definition (version 1, schema 2 unless `def` says otherwise). */
  register(def: Json): Promise<void>;
  /** Registers task definitions. */
  registerTaskDefs(defs: Json[]): Promise<void>;
  /** Starts an execution of `name`; answers its id. */
  start(name: string, input?: Json, extra?: Json): Promise<string>;
  /** A new one-task execution (a SIMPLE task, no retries) whose task a worker has polled: their ids. */
  polledTask(prefix: string): Promise<{ workflowId: string; taskId: string }>;
  /** The task's log lines, oldest first (none: []). */
  taskLogLines(taskId: string): Promise<string[]>;
  /** The execution, with its tasks unless `includeTasks` is false. */
  workflow(id: string, includeTasks?: boolean): Promise<WorkflowView>;
  /** Waits (bounded) until the execution is in `status` (or one of them); answers it with its tasks. */
  waitForStatus(id: string, status: WorkflowStatus | WorkflowStatus[], limitMs?: number): Promise<WorkflowView>;
  /** Waits (bounded) until the execution has a task of reference `ref` in `status` (or one of them). */
  waitForTask(id: string, ref: string, status: TaskStatus | TaskStatus[], limitMs?: number): Promise<TaskView>;
  /** Batch-polls `type` one task at a time until one is handed out (bounded). */
  pollOne(type: string, opts?: PollOptions): Promise<TaskView>;
  /** Posts a result for `task` (COMPLETED unless told) and checks it was taken: 200 with the task's id. */
  complete(task: Pick<TaskView, 'taskId' | 'workflowInstanceId'>, output?: Json, opts?: CompleteOptions): Promise<void>;
}

export interface ApiClientOptions {
  /**
   * Where the task calls go: Conductor's `/api/tasks` (the default) or its `/api/task` alias, which
   * suites that also cover the alias use.
   */
  tasksPath?: '/api/tasks' | '/api/task';
  /** Headers of every request (asked per request: a token may be issued after the client is made). */
  headers?: () => Record<string, string>;
}

/** Throws, naming the call and the answer, unless it is `status`. */
function expectStatus(r: Reply, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}, expected ${status}: ${r.text}`);
}

const asList = <S extends string>(s: S | S[]): S[] => (Array.isArray(s) ? s : [s]);

/**
 * A client over `target`: a base URL, anything with a `url`, or a function asked once per request
 * (so a cluster can send each request to the next replica).
 */
export function apiClient(target: string | { url: string } | (() => string), options: ApiClientOptions = {}): ApiClient {
  const url = typeof target === 'function' ? target : typeof target === 'string' ? () => target : () => target.url;
  const tasks = options.tasksPath ?? '/api/tasks';
  const send = <T = any>(method: string, path: string, body?: unknown, opts: Parameters<typeof call>[4] = {}) =>
    call<T>(url(), method, path, body, { ...opts, headers: { ...options.headers?.(), ...opts.headers } });

  const workflow = async (id: string, includeTasks = true): Promise<WorkflowView> => {
    const r = await send<WorkflowView>('GET', `/api/workflow/${id}?includeTasks=${includeTasks}`);
    expectStatus(r, 200, `GET /api/workflow/${id}`);
    return r.body;
  };

  return {
    url,
    call: send,
    uniq: uniqueName,
    async register(def) {
      expectStatus(await send('POST', '/api/metadata/workflowdef', { version: 1, schemaVersion: 2, ...def }), 200, `register ${String(def.name)}`);
    },
    async registerTaskDefs(defs) {
      expectStatus(await send('POST', '/api/metadata/taskdefs', defs), 200, 'register task definitions');
    },
    async start(name, input = {}, extra = {}) {
      const r = await send<string>('POST', '/api/workflow', { name, input, ...extra });
      expectStatus(r, 200, `start ${name}`);
      return r.text;
    },
    async polledTask(prefix) {
      const taskType = uniqueName(`${prefix}_task`);
      const name = uniqueName(`${prefix}_flow`);
      await this.registerTaskDefs([{ name: taskType, retryCount: 0 }]);
      await this.register({ name, tasks: [{ name: taskType, taskReferenceName: 'work', type: 'SIMPLE' }] });
      const workflowId = await this.start(name);
      const polled = await send<{ taskId: string }>('GET', `/api/tasks/poll/${taskType}?workerid=w1`);
      expectStatus(polled, 200, `poll ${taskType}`);
      return { workflowId, taskId: polled.body.taskId };
    },
    async taskLogLines(taskId) {
      const r = await send<Array<{ log: string }>>('GET', `/api/tasks/${taskId}/log`);
      return r.status === 204 ? [] : r.body.map((l) => l.log);
    },
    workflow,
    waitForStatus(id, status, limitMs) {
      const wanted = asList(status);
      return eventually(async () => {
        const w = await workflow(id);
        return wanted.includes(w.status) ? w : undefined;
      }, limitMs);
    },
    waitForTask(id, ref, status, limitMs) {
      const wanted = asList(status);
      return eventually(async () => (await workflow(id)).tasks.find((t) => t.referenceTaskName === ref && wanted.includes(t.status)), limitMs);
    },
    pollOne(type, opts = {}) {
      const q = new URLSearchParams({ count: '1', timeout: '200' });
      if (opts.workerId) q.set('workerid', opts.workerId);
      if (opts.domain) q.set('domain', opts.domain);
      return eventually(async () => {
        const r = await send<TaskView[]>('GET', `${tasks}/poll/batch/${encodeURIComponent(type)}?${q}`);
        expectStatus(r, 200, `poll ${type}`);
        return r.body[0];
      });
    },
    async complete(task, output = {}, opts = {}) {
      const r = await send('POST', tasks, {
        workflowInstanceId: task.workflowInstanceId,
        taskId: task.taskId,
        status: opts.status ?? 'COMPLETED',
        outputData: output,
        ...opts.extra,
      });
      expectStatus(r, 200, `result of task ${task.taskId}`);
      if (r.text !== task.taskId) throw new Error(`result of task ${task.taskId} answered ${r.text}, expected the task's id`);
    },
  };
}
