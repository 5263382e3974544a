import type { Logger } from 'pino';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import type { TaskService } from './task-service';

// Baton's own worker for HTTP tasks: it polls the HTTP queue like any worker and reports through
// the same update path, so retries, timeouts and limits apply unchanged (reference §4.18).

interface HttpRequestSpec {
  uri?: string;
  method?: string;
  headers?: Record<string, unknown>;
  body?: unknown;
  accept?: string;
  contentType?: string;
  connectionTimeOut?: number | string;
  readTimeOut?: number | string;
}

/** The request spec from `http_request` or, as OSS allows, the same keys at the top level of the input. */
export function httpRequestOf(input: Record<string, unknown>): HttpRequestSpec {
  const spec = (input.http_request && typeof input.http_request === 'object' ? input.http_request : input) as Record<string, unknown>;
  return { ...spec, contentType: (spec.contentType ?? spec['content-Type'] ?? spec['Content-Type']) as string | undefined } as HttpRequestSpec;
}

/** Timeouts are seconds in the interface's examples; values above 1000 are read as Conductor's milliseconds. */
export function timeoutMs(v: number | string | undefined, fallbackMs: number): number {
  if (v === undefined || v === null || v === '') return fallbackMs;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) return fallbackMs;
  return n > 1000 ? n : n * 1000;
}

export async function executeHttp(task: Task, hostName: string): Promise<TaskResult> {
  const base = { workflowInstanceId: task.workflowInstanceId, taskId: task.taskId, workerId: hostName };
  const spec = httpRequestOf(task.inputData);
  if (!spec.uri || !spec.method) {
    return { ...base, status: 'FAILED', reasonForIncompletion: 'Missing HTTP URI or method', outputData: {} };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k] = String(v);
  const contentType = spec.contentType ?? 'application/json';
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['Content-Type'] = contentType;
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'accept')) headers['Accept'] = spec.accept ?? 'application/json';
  const method = spec.method.toUpperCase();
  let body: string | undefined;
  if (spec.body !== undefined && spec.body !== null && method !== 'GET' && method !== 'HEAD') {
    body = typeof spec.body === 'string' && !contentType.includes('json') ? spec.body : JSON.stringify(spec.body);
  }
  const total = timeoutMs(spec.connectionTimeOut, 3000) + timeoutMs(spec.readTimeOut, 3000);
  try {
    const res = await fetch(spec.uri, { method, headers, body, signal: AbortSignal.timeout(total) });
    const text = await res.text();
    let parsed: unknown = text;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const resHeaders: Record<string, string[]> = {};
    res.headers.forEach((v, k) => (resHeaders[k] = [v]));
    const response = { statusCode: res.status, reasonPhrase: res.statusText, headers: resHeaders, body: parsed };
    if (res.status >= 200 && res.status < 300) {
      return { ...base, status: task.workflowTask.asyncComplete ? 'IN_PROGRESS' : 'COMPLETED', outputData: { response } };
    }
    return { ...base, status: 'FAILED', reasonForIncompletion: `Failed to invoke HTTP task due to: ${res.status} ${res.statusText}: ${text}`.slice(0, 500), outputData: { response } };
  } catch (e) {
    const reason = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { ...base, status: 'FAILED', reasonForIncompletion: `Failed to invoke HTTP task due to: ${reason}`, outputData: {} };
  }
}

/** Runs `concurrency` poll loops on the HTTP queue until stopped. */
export class HttpTaskWorker {
  private stopped = false;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly tasks: TaskService,
    private readonly log: Logger,
    private readonly opts: { concurrency: number; hostName: string },
  ) {}

  start(): void {
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop());
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const [task] = await this.tasks.poll('HTTP', { workerId: this.opts.hostName, count: 1, timeoutMs: 1000, signal: this.abort.signal });
        if (!task) continue;
        const result = await executeHttp(task, this.opts.hostName);
        await this.tasks.update(result);
      } catch (e) {
        if (!this.stopped) this.log.warn({ err: e }, 'HTTP task worker error');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await Promise.allSettled(this.loops);
  }
}
