import { BatonError } from '../model/errors';
import { Errors, namedArgs } from '../model/named-errors';

/**
 * Where actors live. The local host runs them in this process; the Dapr host lets the sidecar place
 * them across replicas. Actor code (src/actors) sees only these interfaces.
 *
 * Arguments and results of `invoke` must be JSON-serialisable: on Dapr they cross HTTP.
 */
export interface ActorContext {
  readonly type: string;
  readonly id: string;
  /** Sets (dueAt = epoch ms) or clears (null) the actor's reminder `name`. Survives restarts. */
  setReminder(name: string, dueAt: number | null): Promise<void>;
  /**
   * Optional: a reminder the actor re-derives after a crash (its `recover` call, made by the periodic
   * recovery scan, re-arms it). While this activation lives the host keeps it as a timer in memory and
   * registers it durably only when the activation ends (deactivation, rebalancing, stop); cleared before
   * that, it costs nothing. Absent where every reminder is cheap or nothing would recover it.
   */
  setRecoverableReminder?(name: string, dueAt: number | null): Promise<void>;
  /**
   * Optional: a call of this actor to itself, run as a turn of its own after the current one, in this
   * process while this activation holds the actor (on Dapr: no round trip through the sidecar; see
   * `Actor.holdsClaim`), else through the host. Never await it from inside a turn.
   */
  callSelf?(method: string, arg: unknown): Promise<unknown>;
  /** Optional hint: the actor expects no more calls (e.g. its execution ended); the host may drop it once idle. */
  deactivateWhenIdle?(): void;
  /**
   * Optional per-actor key/value state kept by the host (the Dapr actor state store on the Dapr
   * host). Use it only inside a turn. Absent when the host offers no such store.
   */
  readonly state?: ActorStateStore;
}

/** One write of an actor state transaction; values must be JSON and not the empty string. */
export type ActorStateOp = { operation: 'upsert'; key: string; value: unknown } | { operation: 'delete'; key: string };

export interface ActorStateStore {
  /** The stored value of `key`, or undefined when it has none. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Applies all operations atomically. */
  transact(ops: ActorStateOp[]): Promise<void>;
}

export interface Actor {
  /** Called once per activation, before the first method; load state here. */
  onActivate?(): Promise<void>;
  onDeactivate?(): Promise<void>;
  /** When it returns true the host must not deactivate the actor for idleness (it holds state kept nowhere else). */
  keepAlive?(): boolean;
  /** One turn: the host never runs two calls of the same actor at once. */
  invoke(method: string, arg: unknown): Promise<unknown>;
  /** A reminder fired; also one turn. */
  onReminder(name: string): Promise<void>;
  /**
   * Optional: asked before a turn the host runs in this process without its placement (a reminder timer
   * of this activation, a call made on the replica that holds it, `callSelf`): whether no other activation
   * has committed since this one loaded. True may also mean that the turn proves it itself: its answer
   * comes from its own fenced commit, or, answered without one, after that check. False: the host drops
   * this activation, running none of its timers (the activation that committed keeps its own) and sends
   * the call through placement; so does an ActorDeactivated from the turn. Absent: the host runs no such turn.
   */
  holdsClaim?(turn: InProcessTurn): Promise<boolean>;
}

/** A turn the host runs in process: a reminder timer of the activation, or a call of one of its methods. */
export type InProcessTurn = { reminder: string } | { method: string };

export type ActorFactory = (ctx: ActorContext) => Actor;

export interface ActorHost {
  register(type: string, factory: ActorFactory): void;
  invoke<T = unknown>(type: string, id: string, method: string, arg?: unknown): Promise<T>;
  start(): Promise<void>;
  /** Optional first step of a stop: stop being given new actors while still serving calls (Dapr: fail the app health check). */
  drain?(): Promise<void>;
  /** Deactivates every actor (their in-flight turns finish first) and stops firing reminders. */
  stop(): Promise<void>;
  /** Optional: false while this replica cannot complete actor calls (its liveness check turns red); absent: always true. */
  healthy?(): boolean;
}

/** Raised inside a turn when the actor must be dropped and re-activated (e.g. fenced by a newer writer). */
export class ActorDeactivated extends BatonError {
  constructor(message: string) {
    super(...namedArgs(Errors.ACTOR_DEACTIVATED(message)));
  }
}

/** A call made while the host shuts down: nothing ran; what was owed is re-derived at the next start. */
export class HostStopping extends BatonError {
  constructor() {
    super(...namedArgs(Errors.HOST_STOPPING()));
  }
}

/**
 * An actor call sent whose answer never came (a timeout, a cut connection, a sidecar error after
 * the call left): its turn may have run. Not retryable as is: repeating a start could make a second
 * execution, so the caller is told to look first.
 */
export class OutcomeUnknown extends BatonError {
  constructor(
    readonly call: { type: string; id: string; method: string },
    cause: string,
  ) {
    super(
      ...namedArgs(
        Errors.OUTCOME_UNKNOWN(
          `Outcome unknown: ${call.type}.${call.method} of ${call.id} was sent but its answer was lost (${cause}); it may have taken effect. Look it up (GET /api/workflow/${call.id} for an execution) before repeating it; a start repeated with the same idempotencyKey makes no second execution`,
        ),
      ),
    );
  }
}
