import { HttpError, type HttpPool } from './http-pool';

/** The fields of a polled Task the workers read; the server sends Conductor's full Task. */
export interface PolledTask {
  taskId: string;
  workflowInstanceId: string;
  referenceTaskName: string;
  workflowType: string;
  taskDefName?: string;
  taskType?: string;
  scheduledTime: number;
  inputData?: Record<string, unknown>;
}

export interface TaskResultBody {
  workflowInstanceId: string;
  taskId: string;
  status: 'COMPLETED';
  outputData: Record<string, unknown>;
  workerId: string;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** Conductor REST calls the bench makes, counting every request so that request rates can be reported. */
export class BatonClient {
  requests = 0;
  polls = 0;

  constructor(private readonly pool: HttpPool) {}

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    this.requests++;
    const res = await this.pool.request({
      method,
      path,
      headers: body === undefined ? { accept: 'application/json' } : JSON_HEADERS,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, text };
  }

  private async ok(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const r = await this.call(method, path, body);
    if (r.status < 200 || r.status >= 300) throw new HttpError(r.status, r.text, `${method} ${path}`);
    return r;
  }

  async registerTaskDefs(defs: unknown[]): Promise<void> {
    await this.ok('POST', '/api/metadata/taskdefs', defs);
  }

  async registerWorkflowDef(def: unknown): Promise<void> {
    await this.ok('POST', '/api/metadata/workflow?overwrite=true', def);
  }

  async startWorkflow(name: string, version: number, input: Record<string, unknown>): Promise<string> {
    const r = await this.ok('POST', '/api/workflow', { name, version, input });
    return r.text.trim().replace(/^"|"$/g, '');
  }

  async batchPoll(taskType: string, workerId: string, count: number, timeoutMs: number): Promise<PolledTask[]> {
    this.polls++;
    const q = `workerid=${encodeURIComponent(workerId)}&count=${count}&timeout=${timeoutMs}`;
    const r = await this.ok('GET', `/api/tasks/poll/batch/${encodeURIComponent(taskType)}?${q}`);
    if (r.status === 204 || r.text === '') return [];
    const tasks = JSON.parse(r.text) as PolledTask[];
    if (!Array.isArray(tasks)) throw new Error(`batch poll answered a non-array: ${r.text.slice(0, 200)}`);
    return tasks;
  }

  async updateTask(result: TaskResultBody): Promise<void> {
    await this.ok('POST', '/api/tasks', result);
  }

  /** update-v2: the next task of the same type for this worker, or null on 204/empty. */
  async updateTaskV2(result: TaskResultBody): Promise<PolledTask | null> {
    const r = await this.ok('POST', '/api/tasks/update-v2', result);
    if (r.status === 204 || r.text.trim() === '') return null;
    const next = JSON.parse(r.text) as Partial<PolledTask>;
    return next.taskId && next.workflowInstanceId ? (next as PolledTask) : null;
  }

  async workflowStatus(id: string): Promise<string> {
    const r = await this.ok('GET', `/api/workflow/${encodeURIComponent(id)}?includeTasks=false`);
    return (JSON.parse(r.text) as { status: string }).status;
  }

  /** totalHits of COMPLETED workflows in the (eventually consistent) index. */
  async completedWorkflowsInIndex(): Promise<number> {
    const r = await this.ok('GET', '/api/workflow/search?query=status%3DCOMPLETED&size=1');
    return (JSON.parse(r.text) as { totalHits: number }).totalHits;
  }
}
