import { ActorDeactivated, HostStopping } from '../ports';

/** The JSON body an actor route answers with when a turn fails; callers revive it into an Error. */
export interface SerializedActorError {
  name: string;
  message: string;
  /** Own enumerable JSON-safe properties of the error (e.g. `status`, `code`), kept for the caller. */
  props?: Record<string, unknown>;
}

export interface ActorErrorBody {
  error: SerializedActorError;
}

/** An error raised by a remote actor turn, with the original name, message and properties. */
export class RemoteActorError extends Error {
  readonly props: Record<string, unknown>;
  constructor(e: SerializedActorError) {
    super(e.message);
    this.name = e.name;
    this.props = e.props ?? {};
    Object.assign(this, this.props);
  }
}

/** Sidecar or transport failure (no actor turn result): routing, placement, network. */
export class DaprSidecarError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly body: string,
  ) {
    super(message);
    this.name = 'DaprSidecarError';
  }
}

const jsonSafe = (v: unknown): boolean => {
  if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return true;
  try {
    JSON.stringify(v);
    return typeof v === 'object';
  } catch {
    return false;
  }
};

export const serializeActorError = (err: unknown): ActorErrorBody => {
  if (!(err instanceof Error)) return { error: { name: 'Error', message: String(err) } };
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) if (k !== 'stack' && jsonSafe(v)) props[k] = v;
  return { error: { name: err.name, message: err.message, props } };
};

const asErrorBody = (v: unknown): ActorErrorBody | undefined => {
  if (typeof v !== 'object' || v === null) return undefined;
  const e = (v as { error?: unknown }).error;
  if (typeof e !== 'object' || e === null) return undefined;
  const { name, message } = e as Record<string, unknown>;
  return typeof name === 'string' && typeof message === 'string' ? (v as ActorErrorBody) : undefined;
};

const tryJson = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
};

/**
 * Finds our error body in what the caller's sidecar answered: verbatim when the app's
 * X-DaprErrorResponseHeader was honoured, or embedded in daprd's "error from actor service" text.
 */
export const findActorErrorBody = (responseBody: string): ActorErrorBody | undefined => {
  const direct = asErrorBody(tryJson(responseBody));
  if (direct) return direct;
  const wrapped = tryJson(responseBody) as { message?: unknown } | undefined;
  const text = typeof wrapped?.message === 'string' ? wrapped.message : responseBody;
  const start = text.indexOf('{"error"');
  return start >= 0 ? asErrorBody(tryJson(text.slice(start))) : undefined;
};

export type ErrorReviver = (e: SerializedActorError) => Error | undefined;

export const reviveActorError = (body: ActorErrorBody, revive?: ErrorReviver): Error => {
  // The runtime's own classes first: callers (and this host) act on them by class.
  if (body.error.name === 'ActorDeactivated') return new ActorDeactivated(body.error.message);
  if (body.error.name === 'HostStopping') return new HostStopping();
  return revive?.(body.error) ?? new RemoteActorError(body.error);
};
