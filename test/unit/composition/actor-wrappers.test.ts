import { distributedActorWrapping, gatedTurns, recoveringOnActivation, startLacksDefinition, wireCalls } from '../../../src/composition/actor-wrappers';
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

test('a gate sees each call, and a reminder as no call, and the turn waits for the promise it returns', async () => {
  const calls: string[] = [];
  const seen: unknown[] = [];
  let release!: () => void;
  const actor = gatedTurns(innerActor(calls), (call) => {
    seen.push(call);
    return call?.method === 'start' ? new Promise<void>((r) => (release = r)) : undefined;
  })(ctx);
  const starting = actor.invoke('start', { n: 1 });
  await actor.onReminder('deadline');
  await new Promise((r) => setImmediate(r));
  expect(calls).toEqual(['onReminder deadline']);
  release();
  await starting;
  expect(calls).toEqual(['onReminder deadline', 'invoke start']);
  expect(seen).toEqual([{ method: 'start', arg: { n: 1 } }, undefined]);
});

describe('startLacksDefinition', () => {
  const start = (names: string[]) => ({
    method: 'start',
    arg: { def: { tasks: names.map((name) => ({ name, taskReferenceName: name, type: 'SIMPLE' })) } },
  });
  const known = (name: string) => name === 'known';

  test('a start naming a task definition the cache lacks', () => {
    expect(startLacksDefinition(start(['known', 'new']), known)).toBe(true);
  });
  test('not a start whose task definitions are all held, nor any other call, nor a reminder', () => {
    expect(startLacksDefinition(start(['known']), known)).toBe(false);
    expect(startLacksDefinition({ method: 'update', arg: start(['new']).arg }, known)).toBe(false);
    expect(startLacksDefinition(undefined, known)).toBe(false);
  });
});
