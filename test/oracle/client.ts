import { call, type Reply } from '../support/baton';

/**
 * The one client both servers are driven through: plain Conductor REST calls, no knowledge of which
 * server answers. Waits poll with generous limits (Conductor's sweeper and system-task pollers run on
 * their own schedules).
 */
export class OracleClient {
  constructor(
    readonly url: string,
    readonly side: 'conductor' | 'baton',
  ) {}

  req<T = any>(method: string, path: string, body?: unknown, opts: { raw?: string; contentType?: string } = {}): Promise<Reply<T>> {
    return call<T>(this.url, method, path, body, opts);
  }

  /** A call that must succeed (2xx); returns the body. */
  async ok<T = any>(method: string, path: string, body?: unknown, opts: { raw?: string; contentType?: string } = {}): Promise<T> {
    const r = await this.req<T>(method, path, body, opts);
    if (r.status < 200 || r.status > 299) throw new Error(`${this.side}: ${method} ${path} answered ${r.status}: ${r.text.slice(0, 500)}`);
    return r.body;
  }

  taskDefs(defs: object[]): Promise<unknown> {
    return this.ok('POST', '/api/metadata/taskdefs', defs);
  }

  workflowDef(def: object): Promise<unknown> {
    return this.ok('POST', '/api/metadata/workflow', def);
  }

  async start(name: string, input: object = {}, extra: object = {}): Promise<string> {
    const id = await this.ok<string>('POST', '/api/workflow', { name, input, ...extra });
    return String(id).trim();
  }

  workflow(id: string): Promise<any> {
    return this.ok('GET', `/api/workflow/${id}?includeTasks=true`);
  }

  /** Polls the workflow until `done` holds (default: a terminal status); returns it. */
  async waitWorkflow(id: string, done: (wf: any) => boolean = (wf) => TERMINAL.has(wf.status), limitMs = 120_000): Promise<any> {
    const until = Date.now() + limitMs;
    let wf: any;
    for (;;) {
      wf = await this.workflow(id);
      if (done(wf)) return wf;
      if (Date.now() > until)
        throw new Error(
          `${this.side}: workflow ${id} not in the awaited state within ${limitMs} ms: ${JSON.stringify({ status: wf.status, tasks: (wf.tasks ?? []).map((t: any) => `${t.referenceTaskName}:${t.status}`) })}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Like waitWorkflow, but after `limitMs` returns the workflow as it is (a server that never gets there shows as a difference). */
  async settle(id: string, done: (wf: any) => boolean = (wf) => TERMINAL.has(wf.status), limitMs = 45_000): Promise<any> {
    try {
      return await this.waitWorkflow(id, done, limitMs);
    } catch {
      return this.workflow(id);
    }
  }

  /** Waits until the task with `ref` (last of its attempts) has `status`. */
  waitTask(id: string, ref: string, status: string, limitMs = 120_000): Promise<any> {
    return this.waitWorkflow(id, (wf) => lastTask(wf, ref)?.status === status, limitMs);
  }

  /** Polls for a task of `type` until one comes (the queue may fill a moment after the start). */
  async poll(type: string, workerId = 'oracle-worker', limitMs = 60_000): Promise<any> {
    const until = Date.now() + limitMs;
    for (;;) {
      const r = await this.req('GET', `/api/tasks/poll/${type}?workerid=${workerId}`);
      if (r.status === 200 && r.body && typeof r.body === 'object') return r.body;
      if (Date.now() > until) throw new Error(`${this.side}: no ${type} task to poll within ${limitMs} ms`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  update(task: any, status: string, outputData: object = {}, extra: object = {}): Promise<unknown> {
    return this.ok('POST', '/api/tasks', {
      workflowInstanceId: task.workflowInstanceId,
      taskId: task.taskId,
      status,
      outputData,
      workerId: 'oracle-worker',
      ...extra,
    });
  }

  /** Polls one task of `type` and answers it with `status` and output. */
  async work(type: string, status = 'COMPLETED', outputData: object = {}, extra: object = {}): Promise<any> {
    const task = await this.poll(type);
    await this.update(task, status, outputData, extra);
    return task;
  }
}

export const TERMINAL = new Set(['COMPLETED', 'FAILED', 'TERMINATED', 'TIMED_OUT']);

export const lastTask = (wf: any, ref: string): any => [...(wf.tasks ?? [])].reverse().find((t: any) => t.referenceTaskName === ref);
