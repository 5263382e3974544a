import { effectiveTimeoutMs, httpRequestOf, parseTimeout, redirectsOff } from '../../model/http-request';
import type { Task } from '../../model/execution';
import type { TaskResult } from '../../model/requests';
import type { CallOutcome, CallRequest } from './http-call';

// Pure mapping between an HTTP task and its call: input -> request, outcome -> task result.

export interface RequestLimits {
  maxTimeoutMs: number;
  maxRedirects: number;
}

export type RequestOrReason = { ok: true; request: CallRequest } | { ok: false; reason: string };

/** The call an HTTP task's input asks for, with its timeouts capped; a reason when the input cannot make one. */
export function callRequestOf(input: Record<string, unknown>, limits: RequestLimits): RequestOrReason {
  const spec = httpRequestOf(input);
  if (!spec.uri || !spec.method) return { ok: false, reason: 'Missing HTTP URI or method' };
  const connect = parseTimeout(spec.connectionTimeOut);
  if (!connect.ok) return { ok: false, reason: `Invalid http_request: connectionTimeOut ${connect.message}` };
  const read = parseTimeout(spec.readTimeOut);
  if (!read.ok) return { ok: false, reason: `Invalid http_request: readTimeOut ${read.message}` };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k] = String(v);
  const has = (name: string): boolean => Object.keys(headers).some((k) => k.toLowerCase() === name);
  const contentType = spec.contentType ?? 'application/json';
  if (!has('content-type')) headers['Content-Type'] = contentType;
  if (!has('accept'))
    headers['Accept'] = typeof spec.accept === 'string' ? spec.accept : Array.isArray(spec.accept) ? spec.accept.join(', ') : 'application/json';
  const method = spec.method.toUpperCase();
  let body: string | undefined;
  if (spec.body !== undefined && spec.body !== null && method !== 'GET' && method !== 'HEAD') {
    body = typeof spec.body === 'string' && !contentType.includes('json') ? spec.body : JSON.stringify(spec.body);
  }
  return {
    ok: true,
    request: {
      url: spec.uri,
      method,
      headers,
      body,
      connectTimeoutMs: effectiveTimeoutMs(connect.ms, limits.maxTimeoutMs),
      readTimeoutMs: effectiveTimeoutMs(read.ms, limits.maxTimeoutMs),
      maxRedirects: redirectsOff(spec) ? 0 : limits.maxRedirects,
    },
  };
}

const REASON_PREFIX = 'Failed to invoke HTTP task due to: ';

/** The task result of a call: 2xx completes (IN_PROGRESS with asyncComplete), anything else fails with Conductor's reason text. */
export function taskResultOf(task: Task, outcome: CallOutcome | { kind: 'invalid'; reason: string }, workerId: string): TaskResult {
  const base = { workflowInstanceId: task.workflowInstanceId, taskId: task.taskId, workerId };
  if (outcome.kind === 'invalid') return { ...base, status: 'FAILED', reasonForIncompletion: outcome.reason, outputData: {} };
  if (outcome.kind === 'failure') {
    const response = outcome.partial
      ? { statusCode: outcome.partial.status, reasonPhrase: outcome.partial.statusText, headers: outcome.partial.headers }
      : undefined;
    return { ...base, status: 'FAILED', reasonForIncompletion: REASON_PREFIX + outcome.reason, outputData: response ? { response } : {} };
  }
  let parsed: unknown = outcome.text;
  if (outcome.text && outcome.contentType.includes('json')) {
    try {
      parsed = JSON.parse(outcome.text);
    } catch {
      parsed = outcome.text;
    }
  }
  const response = { statusCode: outcome.status, reasonPhrase: outcome.statusText, headers: outcome.headers, body: parsed };
  if (outcome.status >= 200 && outcome.status < 300) {
    return { ...base, status: task.workflowTask.asyncComplete ? 'IN_PROGRESS' : 'COMPLETED', outputData: { response } };
  }
  return {
    ...base,
    status: 'FAILED',
    reasonForIncompletion: `${REASON_PREFIX}${outcome.status} ${outcome.statusText}: ${outcome.text}`.slice(0, 500),
    outputData: { response },
  };
}

/** The result that replaces one the store refused as too large: the task fails, saying why, without the body. */
export function oversizedResult(result: TaskResult, message: string): TaskResult {
  const response = (result.outputData?.response ?? undefined) as { statusCode?: number; reasonPhrase?: string; headers?: unknown } | undefined;
  return {
    workflowInstanceId: result.workflowInstanceId,
    taskId: result.taskId,
    workerId: result.workerId,
    status: 'FAILED',
    reasonForIncompletion: `${REASON_PREFIX}the response does not fit in a task output: ${message}`.slice(0, 500),
    outputData: response ? { response: { statusCode: response.statusCode, reasonPhrase: response.reasonPhrase, headers: response.headers } } : {},
  };
}
