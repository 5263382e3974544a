import type { z } from 'zod';
import type { ActorHost } from '../../runtime/ports';

// An actor's calls, declared once: method name -> schema of its argument and of its result. Callers
// get a typed client over the host; the actor dispatches through a handler map of the same type.
// The method names are the wire format on Dapr (they appear in the sidecar's URLs).

export interface CallSpec {
  /** What the call takes; checked where the call arrives over the wire (the Dapr app channel). */
  arg: z.ZodType;
  /** What it answers (never checked: the callee is Baton itself). */
  result: z.ZodType;
}
export type Protocol = Record<string, CallSpec>;

export type ArgOf<S extends CallSpec> = z.infer<S['arg']>;
export type ResultOf<S extends CallSpec> = z.infer<S['result']>;

/** The actor side: one handler per call (synchronous ones too: a queue's turn saves after its handler). */
export type Handlers<P extends Protocol> = { [M in keyof P]: (arg: ArgOf<P[M]>) => ResultOf<P[M]> | Promise<ResultOf<P[M]>> };

/** The caller side: a call without a (required) argument takes none. */
export type Client<P extends Protocol> = {
  [M in keyof P]: undefined extends ArgOf<P[M]> ? (arg?: ArgOf<P[M]>) => Promise<ResultOf<P[M]>> : (arg: ArgOf<P[M]>) => Promise<ResultOf<P[M]>>;
};

export interface ActorKind<P extends Protocol> {
  readonly type: string;
  readonly calls: P;
  /** A client of actor `id`; cheap to make (one small object per call site). */
  client(host: Pick<ActorHost, 'invoke'>, id: string): Client<P>;
  /** The actor's `invoke`: looks the method up in `handlers`; an unknown name is an error, never a prototype property. */
  dispatcher(handlers: Handlers<P>): (method: string, arg: unknown) => unknown;
}

export function defineActor<P extends Protocol>(type: string, calls: P): ActorKind<P> {
  const methods = Object.keys(calls);
  // A class per actor type, its methods on the prototype: a client is one allocation of two fields (the task-update path makes one per call).
  class ClientImpl {
    constructor(
      readonly host: Pick<ActorHost, 'invoke'>,
      readonly id: string,
    ) {}
  }
  for (const m of methods) {
    Object.defineProperty(ClientImpl.prototype, m, {
      value(this: ClientImpl, arg?: unknown) {
        return this.host.invoke(type, this.id, m, arg);
      },
    });
  }
  return {
    type,
    calls,
    client: (host, id) => new ClientImpl(host, id) as unknown as Client<P>,
    dispatcher(handlers) {
      const table = new Map<string, (arg: unknown) => unknown>(methods.map((m) => [m, handlers[m] as (arg: unknown) => unknown]));
      return (method, arg) => {
        const h = table.get(method);
        if (!h) throw new Error(`${type} has no method ${method}`);
        return h(arg);
      };
    },
  };
}

/** Checks a call's argument against its declared schema (a ZodError when it does not fit); an unknown method is left to the dispatcher. */
export function checkArg(kind: Pick<ActorKind<Protocol>, 'calls'>, method: string, arg: unknown): void {
  const spec = Object.hasOwn(kind.calls, method) ? kind.calls[method] : undefined;
  spec?.arg.parse(arg);
}
