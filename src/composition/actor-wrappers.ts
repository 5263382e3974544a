import { actorHooks } from '../runtime/actor-hooks';
import type { Actor, ActorFactory } from '../runtime/ports';
import { checkArg, type ActorKind, type Protocol } from '../actors/protocol/protocol';
import { QueueCalls } from '../actors/protocol/queue-protocol';
import { ScheduleCalls } from '../actors/protocol/schedule-protocol';
import { WorkflowCalls, type StartArg } from '../actors/protocol/workflow-protocol';
import { registeredDefinitionsNamed } from '../engine/tasks/registry';
import { asBatonError } from '../services/error-catalogue';

type Log = { warn(o: object, m: string): void };

/** A turn's call as a gate sees it; absent for a reminder's turn. */
export type GatedCall = { method: string; arg: unknown } | undefined;

/**
 * Whether a call starts an execution that names a task definition `known` lacks: one registered through
 * another replica a moment ago, whose announcement has not arrived here yet?
 */
export const startLacksDefinition = (call: GatedCall, known: (taskName: string) => boolean): boolean =>
  call?.method === ('start' satisfies keyof typeof WorkflowCalls.calls) &&
  registeredDefinitionsNamed((call.arg as StartArg).def.tasks).some((name) => !known(name));

/** Every turn first waits for `gate` when it returns a promise (e.g. a definition reload in flight). */
export const gatedTurns =
  (factory: ActorFactory, gate: (call: GatedCall) => Promise<void> | undefined): ActorFactory =>
  (ctx) => {
    const inner = factory(ctx);
    return {
      ...actorHooks(inner),
      async invoke(method, arg) {
        const wait = gate({ method, arg });
        if (wait) await wait;
        return inner.invoke(method, arg);
      },
      async onReminder(name) {
        const wait = gate(undefined);
        if (wait) await wait;
        return inner.onReminder(name);
      },
    } satisfies Actor;
  };

/** Methods whose own work makes a recovery pass pointless (a new execution, or recovery itself). */
const SKIP_RECOVERY = new Set<string>(['start', 'recover'] satisfies Array<keyof typeof WorkflowCalls.calls>);

/**
 * The actor's calls as they cross the wire on Dapr: each argument is checked against the actor's
 * protocol before its turn (a malformed one is refused, a 400 at the API, before any state is
 * touched), and each error leaves as a catalogued BatonError, its status and code with it.
 */
export const wireCalls =
  (factory: ActorFactory, kind: Pick<ActorKind<Protocol>, 'calls'>): ActorFactory =>
  (ctx) => {
    const inner = factory(ctx);
    return {
      ...actorHooks(inner),
      async invoke(method, arg) {
        try {
          checkArg(kind, method, arg);
          return await inner.invoke(method, arg);
        } catch (e) {
          throw asBatonError(e) ?? e;
        }
      },
      onReminder: (name) => inner.onReminder(name),
    } satisfies Actor;
  };

/**
 * Runs the actor's `recover` method at the start of the first turn of every activation. On Dapr an
 * actor re-activates elsewhere when its replica dies: this re-pushes its SCHEDULED tasks to queues
 * that may have died with it and re-runs an outbox the dead replica had not finished.
 */
export const recoveringOnActivation =
  (factory: ActorFactory, log: Log): ActorFactory =>
  (ctx) => {
    const inner = factory(ctx);
    let due = true;
    const recoverOnce = async (method?: string): Promise<void> => {
      if (!due) return;
      due = false;
      if (method !== undefined && SKIP_RECOVERY.has(method)) return;
      // A failed pass is not fatal: the sweep reminder re-pushes, a failed outbox re-arms itself.
      await inner
        .invoke('recover' satisfies keyof typeof WorkflowCalls.calls, undefined)
        .catch((err) => log.warn({ err, type: ctx.type, id: ctx.id }, 'recovery on activation failed'));
    };
    return {
      ...actorHooks(inner),
      async onActivate() {
        due = true;
        await inner.onActivate?.();
      },
      async invoke(method, arg) {
        await recoverOnce(method);
        return inner.invoke(method, arg);
      },
      async onReminder(name) {
        await recoverOnce();
        return inner.onReminder(name);
      },
    } satisfies Actor;
  };

/**
 * What the distributed profile puts around each actor type on Dapr: every call checked against its
 * protocol, and a WorkflowActor's turns behind recovery-on-activation and a pending definition reload.
 */
export const distributedActorWrapping =
  (log: Log, definitionsSettled: (call: GatedCall) => Promise<void> | undefined) =>
  (type: string, factory: ActorFactory): ActorFactory => {
    if (type === WorkflowCalls.type) return wireCalls(gatedTurns(recoveringOnActivation(factory, log), definitionsSettled), WorkflowCalls);
    if (type === ScheduleCalls.type) return wireCalls(factory, ScheduleCalls);
    return type === QueueCalls.type ? wireCalls(factory, QueueCalls) : factory;
  };
