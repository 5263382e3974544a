import type { DaprClient } from '@dapr/dapr';
import HTTPClient from '@dapr/dapr/implementation/Client/HTTPClient/HTTPClient';
import type { ActorStateOp } from '../ports';
import { DaprSidecarError, findActorErrorBody, reviveActorError, type ErrorReviver } from './actor-errors';
import { goDurationFromMs } from './durations';

/**
 * The app -> daprd actor API (reference §1.4), spoken through the SDK's HTTP client: the SDK's
 * actor client has no generic invoke (only class-name proxies), takes Temporal durations for
 * reminders and cannot send `failure_policy`, so we call the documented paths with
 * `DaprClient.daprClient.execute` and keep the SDK's endpoint, token and keep-alive handling.
 */
export class SidecarActorApi {
  private readonly http: HTTPClient;

  constructor(
    client: DaprClient,
    private readonly reviveError?: ErrorReviver,
  ) {
    if (!(client.daprClient instanceof HTTPClient)) throw new Error('DaprActorHost needs a DaprClient using the HTTP protocol');
    this.http = client.daprClient;
  }

  /** Waits until the sidecar answers (the SDK polls GET /v1.0/metadata, about 30 s at most). */
  async ready(): Promise<void> {
    await this.http.start();
  }

  async invoke(type: string, id: string, method: string, arg: unknown): Promise<unknown> {
    // Our actor routes always answer a JSON document (null for no result), so the parsed body is the result.
    return this.call(`${actorPath(type, id)}/method/${encodeURIComponent(method)}`, 'PUT', arg);
  }

  async getState(type: string, id: string, key: string): Promise<unknown> {
    const value = await this.call(`${actorPath(type, id)}/state/${encodeURIComponent(key)}`, 'GET');
    // daprd answers 204 with no body for a missing key; the SDK hands that back as ''.
    return value === '' ? undefined : value;
  }

  async transactState(type: string, id: string, ops: ActorStateOp[]): Promise<void> {
    if (ops.length === 0) return;
    const body = ops.map((op) => {
      if (op.operation === 'delete') return { operation: 'delete', request: { key: op.key } };
      if (op.value === '' || op.value === undefined) throw new Error(`actor state ${op.key}: empty values cannot be stored`);
      return { operation: 'upsert', request: { key: op.key, value: op.value } };
    });
    await this.call(`${actorPath(type, id)}/state`, 'POST', body);
  }

  /** One-shot reminder due in `dueInMs`, replacing one of the same name, retried until the app answers 200. */
  async setReminder(type: string, id: string, name: string, dueInMs: number, data: unknown, retryInterval: string): Promise<void> {
    await this.call(`${actorPath(type, id)}/reminders/${encodeURIComponent(name)}`, 'PUT', {
      dueTime: goDurationFromMs(dueInMs),
      data,
      overwrite: true,
      // No max_retries: a dropped one-shot would lose a workflow deadline (reference §6.3 item 3).
      failure_policy: { constant: { interval: retryInterval } },
    });
  }

  async deleteReminder(type: string, id: string, name: string): Promise<void> {
    await this.call(`${actorPath(type, id)}/reminders/${encodeURIComponent(name)}`, 'DELETE');
  }

  private async call(path: string, method: string, body?: unknown): Promise<unknown> {
    try {
      return await this.http.execute(path, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        // The SDK skips falsy bodies (0, false, null); a toJSON wrapper is truthy and serialises to the value.
        body: body === undefined ? undefined : { toJSON: () => body },
      } as never);
    } catch (err) {
      throw this.translate(err);
    }
  }

  private translate(err: unknown): Error {
    if (!(err instanceof Error)) return new DaprSidecarError(String(err), undefined, '');
    const failure = parseSdkFailure(err.message);
    if (!failure) return new DaprSidecarError(err.message, undefined, '');
    const actorError = findActorErrorBody(failure.body);
    if (actorError) return reviveActorError(actorError, this.reviveError);
    return new DaprSidecarError(`daprd answered ${failure.status}: ${failure.body}`, failure.status, failure.body);
  }
}

const actorPath = (type: string, id: string): string => `/actors/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

/** The SDK throws Error(JSON {error, error_msg, status}) for non-2xx answers. */
const parseSdkFailure = (message: string): { status: number; body: string } | undefined => {
  try {
    const parsed = JSON.parse(message) as { status?: unknown; error_msg?: unknown };
    if (typeof parsed.status === 'number') return { status: parsed.status, body: typeof parsed.error_msg === 'string' ? parsed.error_msg : '' };
  } catch {
    // not an SDK status failure (network error etc.)
  }
  return undefined;
};

/** A failure that happened before any actor turn ran, so repeating the call is safe. */
export const isRetriableRouting = (err: unknown): boolean => {
  if (err instanceof DaprSidecarError) {
    // No host known for the actor yet (placement dissemination, rebalance): daprd never reached an app.
    if (err.status !== undefined && /ERR_ACTOR_NO_ADDRESS|did not find address for actor/i.test(err.body)) return true;
    return err.status === undefined && /ECONNREFUSED/.test(err.message);
  }
  return false;
};
