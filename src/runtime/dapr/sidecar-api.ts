import type { ActorStateOp } from '../ports';
import { DaprSidecarError, findActorErrorBody, reviveActorError, type ErrorReviver } from './actor-errors';
import { goDurationFromMs } from './durations';
import type { SidecarHttp, SidecarReply } from './sidecar-http';

/** The app -> daprd actor API: documented paths of daprd's HTTP API (pkg/api/http/actors.go upstream). */
export class SidecarActorApi {
  constructor(
    private readonly http: SidecarHttp,
    private readonly reviveError?: ErrorReviver,
    /** Limit of one actor method call, including its wait in the actor's turn queue. */
    private readonly invokeTimeoutMs = 60_000,
  ) {}

  /** Waits until the sidecar answers (its components loaded). */
  async ready(withinMs = 60_000): Promise<void> {
    await this.http.waitReady(withinMs);
  }

  async invoke(type: string, id: string, method: string, arg: unknown, timeoutMs = this.invokeTimeoutMs): Promise<unknown> {
    // Our actor routes always answer a JSON document (null for no result), so the parsed body is the result.
    const body = await this.call('PUT', `${actorPath(type, id)}/method/${encodeURIComponent(method)}`, arg, timeoutMs);
    return body === '' ? undefined : JSON.parse(body);
  }

  async getState(type: string, id: string, key: string): Promise<unknown> {
    const body = await this.call('GET', `${actorPath(type, id)}/state/${encodeURIComponent(key)}`);
    // daprd answers 204 with no body for a missing key.
    return body === '' ? undefined : JSON.parse(body);
  }

  async transactState(type: string, id: string, ops: ActorStateOp[]): Promise<void> {
    if (ops.length === 0) return;
    const body = ops.map((op) => {
      if (op.operation === 'delete') return { operation: 'delete', request: { key: op.key } };
      if (op.value === '' || op.value === undefined) throw new Error(`actor state ${op.key}: empty values cannot be stored`);
      return { operation: 'upsert', request: { key: op.key, value: op.value } };
    });
    await this.call('POST', `${actorPath(type, id)}/state`, body);
  }

  /**
   * One-shot reminder due in `dueInMs`, replacing one of the same name. The failure policy asks
   * for retries until the app answers 200; the host also re-arms by itself, because daprd's HTTP
   * API is not known to honour `failure_policy`.
   */
  async setReminder(type: string, id: string, name: string, dueInMs: number, data: unknown, retryInterval: string, timeoutMs?: number): Promise<void> {
    const reminder = { dueTime: goDurationFromMs(dueInMs), data, overwrite: true, failure_policy: { constant: { interval: retryInterval } } };
    await this.call('PUT', `${actorPath(type, id)}/reminders/${encodeURIComponent(name)}`, reminder, timeoutMs);
  }

  async deleteReminder(type: string, id: string, name: string): Promise<void> {
    await this.call('DELETE', `${actorPath(type, id)}/reminders/${encodeURIComponent(name)}`);
  }

  private async call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs?: number): Promise<string> {
    let reply: SidecarReply;
    try {
      reply = await this.http.call(method, path, body, timeoutMs);
    } catch (err) {
      throw transportError(err);
    }
    if (reply.status >= 200 && reply.status < 300) return reply.body;
    const actorError = findActorErrorBody(reply.body);
    if (actorError) throw reviveActorError(actorError, this.reviveError);
    throw new DaprSidecarError(`daprd answered ${reply.status}: ${reply.body}`, reply.status, reply.body);
  }
}

const actorPath = (type: string, id: string): string => `/v1.0/actors/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

const transportError = (err: unknown): DaprSidecarError => {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? e.name ?? 'Error';
  return new DaprSidecarError(`sidecar unreachable (${code}): ${e.message ?? String(err)}`, undefined, '');
};

const ROUTING_FAILURES = [
  /ERR_ACTOR_NO_ADDRESS|did not find address for actor|placement is disseminating/i,
  /ERR_ACTOR_RUNTIME_NOT_FOUND|actor runtime is not ready/i,
  /failed to create actor: actor type \S+ not registered/i,
  /actor is closed, cannot handle/i,
  /code = Unavailable desc = connection error.*(connection refused|Error while dialing)/i,
];

/** A failure that happened before any actor turn ran, so repeating the call is safe. */
export const isRetriableRouting = (err: unknown): boolean => {
  if (!(err instanceof DaprSidecarError)) return false;
  // daprd never reached a turn: no host known yet (placement dissemination, rebalance), the chosen
  // host's sidecar already unregistered the type (it is draining), or that sidecar is gone.
  if (err.status !== undefined) return ROUTING_FAILURES.some((re) => re.test(err.body));
  // The sidecar itself is not listening (restarting): the call never left this process.
  return /ECONNREFUSED/.test(err.message);
};

/** A failure after the call left for its actor (timeout, cut connection, daprd's 5xx other than routing): the turn may have run. */
export const mayHaveRun = (err: unknown): err is DaprSidecarError =>
  err instanceof DaprSidecarError && !isRetriableRouting(err) && (err.status === undefined || err.status >= 500);
