import { distributedActorWrapping, gatedTurns, recoveringOnActivation, wireCalls } from '../../../src/composition/actor-wrappers';
import { QueueCalls } from '../../../src/actors/protocol/queue-protocol';
import { ScheduleCalls } from '../../../src/actors/protocol/schedule-protocol';
import { WorkflowCalls } from '../../../src/actors/protocol/workflow-protocol';
import type { Metrics } from '../../../src/metrics/ports';
import type { Actor, ActorContext, ActorFactory } from '../../../src/runtime/ports';
import { observedActor } from '../../../src/telemetry/observed-actors';

// Each wrapper the compositions put around an actor (the metrics' one too) keeps the actor's optional hooks: the
// Dapr host asks holdsClaim before it runs a turn in process, keepAlive before an idle deactivation.

const ctx: ActorContext = { type: 'T', id: 'a', setReminder: async () => undefined };
const log = { warn: () => undefined };

function innerActor(calls: string[]): ActorFactory {
  return () =>
    ({
      onActivate: async () => void calls.push('onActivate'),
      onDeactivate: async () => void calls.push('onDeactivate'),
      keepAlive: () => (calls.push('keepAlive'), true),
      holdsClaim: async (turn) => (calls.push(`holdsClaim ${JSON.stringify(turn)}`), false),
      invoke: async (method) => void calls.push(`invoke ${method}`),
      onReminder: async (name) => void calls.push(`onReminder ${name}`),
    }) satisfies Actor;
}

const wrappers: Array<[string, (f: ActorFactory) => ActorFactory]> = [
  ['gatedTurns', (f) => gatedTurns(f, () => undefined)],
  ['wireCalls', (f) => wireCalls(f, QueueCalls)],
  ['recoveringOnActivation', (f) => recoveringOnActivation(f, log)],
  ['observedActor', (f) => observedActor('T', f, { actorActivated: () => undefined, actorTurn: () => undefined } as unknown as Metrics)],
];

test.each(wrappers)('%s passes every optional hook through to the actor', async (_name, wrap) => {
  const calls: string[] = [];
  const actor = wrap(innerActor(calls))(ctx);
  await actor.onActivate!();
  expect(actor.keepAlive!()).toBe(true);
  expect(await actor.holdsClaim!({ reminder: 'deadline' })).toBe(false);
  await actor.onDeactivate!();
  expect(calls).toEqual(['onActivate', 'keepAlive', 'holdsClaim {"reminder":"deadline"}', 'onDeactivate']);
});

test.each(wrappers)('%s leaves a hook the actor lacks absent', (_name, wrap) => {
  const actor = wrap(() => ({ invoke: async () => undefined, onReminder: async () => undefined }))(ctx);
  expect(actor.holdsClaim).toBeUndefined();
  expect(actor.keepAlive).toBeUndefined();
});

test.each([WorkflowCalls.type, ScheduleCalls.type, QueueCalls.type])('the distributed wrapping of a %s keeps its hooks', async (type) => {
  const calls: string[] = [];
  const actor = distributedActorWrapping(log, () => undefined)(type, innerActor(calls))({ ...ctx, type });
  expect(actor.keepAlive!()).toBe(true);
  expect(await actor.holdsClaim!({ method: 'clearOutbox' })).toBe(false);
  expect(calls).toEqual(['keepAlive', 'holdsClaim {"method":"clearOutbox"}']);
});
