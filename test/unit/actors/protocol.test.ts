import { ZodError } from 'zod';
import { checkArg } from '../../../src/actors/protocol/protocol';
import { QueueCalls, queueActor } from '../../../src/actors/protocol/queue-protocol';
import { WorkflowCalls, workflowActor } from '../../../src/actors/protocol/workflow-protocol';
import { wireCalls } from '../../../src/composition/actor-wrappers';
import type { Actor, ActorHost } from '../../../src/runtime/ports';

// The actor protocols are the Dapr wire format: method names appear in the sidecar's URLs, so a
// rename would break calls between replicas of different versions.

const calls: Array<[string, string, string, unknown]> = [];
const host: ActorHost = {
  invoke: async <T>(type: string, id: string, method: string, arg?: unknown) => {
    calls.push([type, id, method, arg]);
    return null as T;
  },
  register: () => undefined,
  start: async () => undefined,
  stop: async () => undefined,
};

test('method names on the wire', () => {
  expect(WorkflowCalls.type).toBe('WorkflowActor');
  expect(Object.keys(WorkflowCalls.calls).sort()).toEqual(
    [
      'childChanged',
      'claim',
      'clearOutbox',
      'get',
      'pause',
      'recover',
      'release',
      'remove',
      'rerun',
      'resetCallbacks',
      'restart',
      'resume',
      'retry',
      'skip',
      'start',
      'terminate',
      'update',
      'updateAndLocate',
      'updateExternal',
      'updateVariables',
      'upgrade',
    ].sort(),
  );
  expect(QueueCalls.type).toBe('QueueActor');
  expect(Object.keys(QueueCalls.calls).sort()).toEqual(['push', 'pushMany', 'remove', 'size', 'take']);
});

test('a client call is one host call with the method name and the argument as given', async () => {
  calls.length = 0;
  await workflowActor(host, 'wf-1').terminate({ reason: 'r' });
  await workflowActor(host, 'wf-1').pause();
  await queueActor(host, 'q#0').take({ count: 2, now: 5 });
  expect(calls).toEqual([
    ['WorkflowActor', 'wf-1', 'terminate', { reason: 'r' }],
    ['WorkflowActor', 'wf-1', 'pause', undefined],
    ['QueueActor', 'q#0', 'take', { count: 2, now: 5 }],
  ]);
});

test('the dispatcher answers only declared methods', () => {
  const invoke = QueueCalls.dispatcher({
    push: () => true,
    pushMany: () => null,
    take: () => ({ entries: [] }),
    remove: () => true,
    size: () => 0,
  });
  expect(invoke('remove', { taskId: 'x' })).toBe(true);
  expect(() => invoke('toString', undefined)).toThrow('QueueActor has no method toString');
});

test('arguments are checked against the protocol where calls arrive over the wire', async () => {
  expect(() => checkArg(WorkflowCalls, 'claim', { taskId: 7 })).toThrow(ZodError);
  expect(() => checkArg(WorkflowCalls, 'claim', { taskId: 't', workerId: 'w' })).not.toThrow();
  expect(() => checkArg(WorkflowCalls, 'pause', undefined)).not.toThrow();
  expect(() => checkArg(QueueCalls, 'push', { taskId: 't', workflowId: 'w', priority: 0 })).toThrow(ZodError);
  // Through the wrapper a malformed call never reaches the actor, and leaves as a catalogued 400.
  let reached = 0;
  const inner: Actor = { invoke: async () => void reached++, onReminder: async () => undefined };
  const actor = wireCalls(() => inner, QueueCalls)({ type: 'QueueActor', id: 'q', setReminder: async () => undefined });
  await expect(actor.invoke('take', { count: 'many' })).rejects.toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  expect(reached).toBe(0);
  await actor.invoke('take', { count: 1, now: 0 });
  expect(reached).toBe(1);
});
