import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { request } from 'undici';
import { WorkflowActor } from '../../../../src/actors/workflow-actor';
import type { EngineEnv } from '../../../../src/engine/state';
import { TaskDefSchema, WorkflowDefSchema } from '../../../../src/model/definitions';
import type { Effect } from '../../../../src/model/effects';
import { DaprActorHost } from '../../../../src/runtime/dapr/dapr-actor-host';
import type { SidecarHttp, SidecarReply } from '../../../../src/runtime/dapr/sidecar-http';
import type { ActorContext } from '../../../../src/runtime/ports';
import { outsideTurn } from '../../../../src/runtime/turn-context';
import type { ExecutionStore } from '../../../../src/store/ports';
import { sqliteEngineWorld } from '../../../support/sqlite-engine-world';
import { smallEngineEnv } from '../../../support/small-engine-env';

// Turns the Dapr host runs in this process without daprd (a reminder timer of an activation, callSelf)
// bypass daprd's placement. Here replica A still holds an activation after another activation (replica
// B, where daprd now places the actor) committed: A's in-process turns must do nothing, A must drop the
// activation, and a callSelf must reach B through daprd.

/** A fake daprd: records every call; actor method calls go to the replica daprd now places the actor on. */
class FakeSidecar {
  readonly calls: string[] = [];
  owner: string | undefined;
  async call(method: string, path: string, body?: unknown): Promise<SidecarReply> {
    this.calls.push(`${method} ${path}`);
    const m = /^\/v1\.0\/actors\/([^/]+)\/([^/]+)\/method\/([^/]+)$/.exec(path);
    if (!m || !this.owner) return { status: 204, body: '' };
    const res = await request(`${this.owner}/actors/${m[1]}/${m[2]}/method/${m[3]}`, { method: 'PUT', body: JSON.stringify(body ?? null) });
    return { status: res.statusCode, body: await res.body.text() };
  }
}

class Replica {
  readonly sidecar = new FakeSidecar();
  readonly logs: string[] = [];
  readonly host: DaprActorHost;
  private server?: Server;
  base = '';

  constructor() {
    const note = (_o: unknown, m?: string) => void this.logs.push(String(m));
    this.host = new DaprActorHost({
      sidecar: this.sidecar as unknown as SidecarHttp,
      log: { debug: () => undefined, info: note, warn: note, error: note },
      recoverableRemindersInMemory: true,
    });
  }

  async listen(): Promise<this> {
    const app = express();
    app.use(this.host.router());
    this.server = app.listen(0, '127.0.0.1');
    await new Promise((r) => this.server!.once('listening', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A call daprd delivers to this replica. */
  async deliver(type: string, id: string, method: string, arg: unknown): Promise<{ status: number; body: unknown }> {
    const res = await request(`${this.base}/actors/${type}/${id}/method/${method}`, { method: 'PUT', body: JSON.stringify(arg) });
    return { status: res.statusCode, body: await res.body.json() };
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** Resolves once this replica logged `message`. */
  async logged(message: string): Promise<void> {
    for (let i = 0; i < 1000 && !this.logs.includes(message); i++) await new Promise((r) => setTimeout(r, 5));
    expect(this.logs).toContain(message);
  }
}

const replicas: Replica[] = [];
const replica = async (): Promise<Replica> => {
  const r = await new Replica().listen();
  replicas.push(r);
  return r;
};
afterEach(async () => {
  for (const r of replicas.splice(0)) await r.close();
});

describe('callSelf on a superseded activation', () => {
  /** An actor whose memory is its generation: callSelf answers it; `holdsClaim` compares it with the stored one. */
  const stored = { generation: 0 };
  const register = (r: Replica, seen: { invoked: string[]; deactivated: number }) => {
    let callSelf!: ActorContext['callSelf'];
    r.host.register('Gen', (ctx) => {
      callSelf = ctx.callSelf;
      let generation = 0;
      return {
        holdsClaim: async () => generation === stored.generation,
        onDeactivate: async () => void seen.deactivated++,
        onReminder: async () => undefined,
        invoke: async (method) => {
          seen.invoked.push(method);
          if (method === 'take') generation = ++stored.generation; // a commit: this activation now holds the actor
          return { generation };
        },
      };
    });
    return { callSelf: (m: string) => outsideTurn(() => callSelf!(m, {})) };
  };

  test('runs nothing on the old activation, drops it, and reaches the new owner through daprd', async () => {
    const [a, b] = [await replica(), await replica()];
    const seenA = { invoked: [] as string[], deactivated: 0 };
    const seenB = { invoked: [] as string[], deactivated: 0 };
    const selfA = register(a, seenA);
    register(b, seenB);
    expect(await a.deliver('Gen', 'g1', 'take', {})).toEqual({ status: 200, body: { generation: 1 } });
    expect(await selfA.callSelf('peek')).toEqual({ generation: 1 }); // still held: in process, no sidecar call
    expect(a.sidecar.calls).toEqual([]);

    // daprd moved the actor to B, whose activation committed; A's deactivation never arrived.
    expect(await b.deliver('Gen', 'g1', 'take', {})).toEqual({ status: 200, body: { generation: 2 } });
    a.sidecar.owner = b.base;
    seenA.invoked.length = 0;

    expect(await selfA.callSelf('peek')).toEqual({ generation: 2 }); // B's answer, not A's stale one
    expect(seenA.invoked).toEqual([]);
    expect(seenA.deactivated).toBe(1);
    expect(a.logs).toContain('activation superseded by another; dropped');
    expect(a.sidecar.calls).toEqual(['PUT /v1.0/actors/Gen/g1/method/peek']);
    expect(seenB.invoked).toEqual(['take', 'peek']);

    // Dropped for good: the next callSelf does not re-activate it in this process.
    expect(await selfA.callSelf('peek')).toEqual({ generation: 2 });
    expect(seenA.invoked).toEqual([]);
  });
});

describe('a call made on the replica that holds the activation', () => {
  test('runs in process while held; once superseded, drops the activation and reaches the new owner through daprd', async () => {
    const [a, b] = [await replica(), await replica()];
    let stored = 0;
    const seenA: string[] = [];
    const seenB: string[] = [];
    const gen = (r: Replica, seen: string[]) =>
      r.host.register('Gen', () => {
        let generation = 0;
        return {
          holdsClaim: async () => generation === stored,
          onReminder: async () => undefined,
          invoke: async (method) => {
            seen.push(method);
            if (method === 'take') generation = ++stored;
            return { generation };
          },
        };
      });
    gen(a, seenA);
    gen(b, seenB);
    // Not held here yet: through daprd, which places it on A.
    a.sidecar.owner = a.base;
    expect(await a.host.invoke('Gen', 'g2', 'take')).toEqual({ generation: 1 });
    expect(a.sidecar.calls).toEqual(['PUT /v1.0/actors/Gen/g2/method/take']);
    expect(await a.host.invoke('Gen', 'g2', 'peek')).toEqual({ generation: 1 });
    expect(a.sidecar.calls).toHaveLength(1); // held: no sidecar call

    // daprd moved it to B, whose activation committed; A's deactivation never arrived.
    expect(await b.deliver('Gen', 'g2', 'take', {})).toEqual({ status: 200, body: { generation: 2 } });
    a.sidecar.owner = b.base;
    seenA.length = 0;
    expect(await a.host.invoke('Gen', 'g2', 'peek')).toEqual({ generation: 2 });
    expect(seenA).toEqual([]);
    expect(a.sidecar.calls).toEqual(['PUT /v1.0/actors/Gen/g2/method/take', 'PUT /v1.0/actors/Gen/g2/method/peek']);
    expect(seenB).toEqual(['take', 'peek']);
  });
});

describe('a reminder timer of a superseded WorkflowActor activation', () => {
  const world = sqliteEngineWorld('baton-inproc-');

  const def = WorkflowDefSchema.parse({
    name: 'two_steps',
    version: 1,
    tasks: [
      { name: 'work', taskReferenceName: 'first', type: 'SIMPLE' },
      { name: 'work', taskReferenceName: 'second', type: 'SIMPLE' },
    ],
  });
  let seq = 0;
  const env = (): EngineEnv =>
    smallEngineEnv({ now: Date.now(), newId: () => `inproc-t${++seq}`, taskDef: (name) => (name === 'work' ? TaskDefSchema.parse({ name }) : undefined) });

  /** Hosts WorkflowActor on `r`; what its turns emitted is recorded; its outbox runs wait for `outboxGate`. */
  const hostWorkflows = (r: Replica, store: ExecutionStore, sweepIntervalMs: number, outboxGate: Promise<void> = Promise.resolve()) => {
    const emitted: Effect[] = [];
    r.host.register(
      'WorkflowActor',
      (ctx) =>
        new WorkflowActor(ctx, {
          store,
          env,
          scripts: world.scripts,
          runEffects: async (_id, effects) => void emitted.push(...effects),
          runDeferred: async (_id, effects) => {
            await outboxGate;
            emitted.push(...effects);
          },
          index: () => undefined,
          removeFromIndex: async () => undefined,
          actorOf: () => {
            throw new Error('no calls of other executions here');
          },
          log: pino({ level: 'silent' }),
          sweepIntervalMs,
        }),
    );
    return emitted;
  };

  test('does nothing: no queue push, no reminder, no sidecar call; the activation is dropped', async () => {
    const [a, b] = [await replica(), await replica()];
    // A's check of its claim waits until B has committed, whenever A's timer fires.
    let superseded!: () => void;
    const bCommitted = new Promise<void>((r) => (superseded = r));
    const real = world.stores.executions;
    const gated = new Proxy(real, {
      get: (target, p) =>
        p === 'revOf' ? async (wf: string) => (await bCommitted, real.revOf(wf)) : (Reflect.get(target, p) as (...a: unknown[]) => unknown).bind(target),
    });
    const emittedA = hostWorkflows(a, gated, 20); // its sweep timer fires soon after the start
    const emittedB = hostWorkflows(b, world.stores.executions, 3_600_000);
    const id = `wf-inproc-${Date.now()}`;

    const started = await a.deliver('WorkflowActor', id, 'start', { workflowId: id, fresh: true, def, request: { name: def.name, version: 1, input: {} } });
    expect(started).toEqual({ status: 200, body: id });
    const first = (await world.stores.executions.load(id))!.tasks[0]!;
    expect(emittedA).toEqual([expect.objectContaining({ kind: 'enqueue', taskId: first.taskId })]);
    emittedA.length = 0;

    // daprd moved the execution to B: the first task completes there (rev 2); B takes it off its queue and pushes the second.
    const done = await b.deliver('WorkflowActor', id, 'update', { workflowInstanceId: id, taskId: first.taskId, status: 'COMPLETED', outputData: {} });
    expect(done).toEqual({ status: 200, body: 'applied' });
    expect(emittedB.map((e) => e.kind)).toEqual(['dequeue', 'enqueue']);
    superseded();

    await a.logged('activation superseded by another; dropped');
    // A's stale memory still had `first` SCHEDULED: a sweep there would have pushed the completed task again.
    expect(emittedA).toEqual([]);
    expect(a.sidecar.calls).toEqual([]);
    const s = (await world.stores.executions.load(id))!;
    expect(s.rev).toBe(2);
    expect(s.tasks.map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['first', 'COMPLETED'],
      ['second', 'SCHEDULED'],
    ]);
  });

  test('its clearOutbox after an outbox run is fenced, drops the activation and reaches the new owner through daprd, arming no reminder', async () => {
    const [a, b] = [await replica(), await replica()];
    let releaseA!: () => void;
    const emittedA = hostWorkflows(a, world.stores.executions, 3_600_000, new Promise<void>((r) => (releaseA = r)));
    const emittedB = hostWorkflows(b, world.stores.executions, 3_600_000);
    const one = WorkflowDefSchema.parse({ name: 'one_step', version: 1, tasks: [{ name: 'work', taskReferenceName: 'only', type: 'SIMPLE' }] });
    const id = `wf-inproc-outbox-${Date.now()}`;
    await a.deliver('WorkflowActor', id, 'start', { workflowId: id, fresh: true, def: one, request: { name: one.name, version: 1, input: {} } });
    const only = (await world.stores.executions.load(id))!.tasks[0]!;
    await a.deliver('WorkflowActor', id, 'update', { workflowInstanceId: id, taskId: only.taskId, status: 'COMPLETED', outputData: {} });
    expect((await world.stores.executions.load(id))!.outbox.map((e) => e.kind)).toEqual(['index']); // A's outbox run waits

    // daprd moved the execution to B (the recovery scan's call): B runs the outbox and clears it.
    expect((await b.deliver('WorkflowActor', id, 'recover', null)).status).toBe(200);
    for (let i = 0; i < 1000 && (await world.stores.executions.load(id))!.outbox.length > 0; i++) await new Promise((r) => setTimeout(r, 5));
    const cleared = (await world.stores.executions.load(id))!;
    expect(cleared.outbox).toEqual([]);
    expect(emittedB.map((e) => e.kind)).toEqual(['index']);

    a.sidecar.owner = b.base;
    const before = emittedA.length;
    releaseA();
    await a.logged('activation superseded by another; dropped');
    for (let i = 0; i < 1000 && a.sidecar.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(a.sidecar.calls).toEqual([`PUT /v1.0/actors/WorkflowActor/${id}/method/clearOutbox`]);
    expect(emittedA.slice(before).map((e) => e.kind)).toEqual(['index']); // the run it had started from its committed outbox, nothing after
    expect((await world.stores.executions.load(id))!.rev).toBe(cleared.rev);
  });

  test('a claim made on its replica that its stale memory would refuse without a commit reaches the new owner, which claims', async () => {
    const [a, b] = [await replica(), await replica()];
    hostWorkflows(a, world.stores.executions, 3_600_000);
    hostWorkflows(b, world.stores.executions, 3_600_000);
    const id = `wf-inproc-claim-${Date.now()}`;
    await a.deliver('WorkflowActor', id, 'start', { workflowId: id, fresh: true, def, request: { name: def.name, version: 1, input: {} } });
    const first = (await world.stores.executions.load(id))!.tasks[0]!;
    const claimed = await a.host.invoke<{ taskId: string; status: string }>('WorkflowActor', id, 'claim', { taskId: first.taskId, workerId: 'w' });
    expect(claimed).toMatchObject({ taskId: first.taskId, status: 'IN_PROGRESS' });
    expect(a.sidecar.calls).toEqual([]); // held here: claimed in process, its commit the proof

    // daprd moved the execution to B: the first task completes there and B schedules the second, which A's memory lacks.
    await b.deliver('WorkflowActor', id, 'update', { workflowInstanceId: id, taskId: first.taskId, status: 'COMPLETED', outputData: {} });
    const second = (await world.stores.executions.load(id))!.tasks[1]!;
    a.sidecar.owner = b.base;
    const answer = await a.host.invoke<{ taskId: string; status: string } | null>('WorkflowActor', id, 'claim', { taskId: second.taskId, workerId: 'w' });
    expect(answer).toMatchObject({ taskId: second.taskId, status: 'IN_PROGRESS' }); // not A's stale "no such task"
    expect(a.logs).toContain('activation superseded by another; dropped');
    expect(a.sidecar.calls).toEqual([`PUT /v1.0/actors/WorkflowActor/${id}/method/claim`]);
    expect((await world.stores.executions.load(id))!.tasks[1]!.status).toBe('IN_PROGRESS');
  });

  test('one that still holds its claim runs the reminder in process (the sweep pushes its scheduled task again)', async () => {
    const a = await replica();
    const emittedA = hostWorkflows(a, world.stores.executions, 20);
    const id = `wf-inproc-held-${Date.now()}`;
    await a.deliver('WorkflowActor', id, 'start', { workflowId: id, fresh: true, def, request: { name: def.name, version: 1, input: {} } });
    const first = (await world.stores.executions.load(id))!.tasks[0]!;
    for (let i = 0; i < 1000 && emittedA.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(emittedA.slice(0, 2)).toEqual([
      expect.objectContaining({ kind: 'enqueue', taskId: first.taskId }),
      expect.objectContaining({ kind: 'enqueue', taskId: first.taskId }),
    ]);
    expect(a.logs).not.toContain('activation superseded by another; dropped');
    expect(a.sidecar.calls).toEqual([]);
    await a.host.stop();
  });
});

test('an actor that cannot confirm its claim gets no in-memory timers: its reminder is registered with daprd at once', async () => {
  const a = await replica();
  a.host.register('Plain', (ctx) => ({
    invoke: async () => {
      await ctx.setRecoverableReminder!('deadline', Date.now() + 3_600_000);
      return 'armed';
    },
    onReminder: async () => undefined,
  }));
  expect(await a.deliver('Plain', 'p1', 'arm', {})).toEqual({ status: 200, body: 'armed' });
  expect(a.sidecar.calls).toEqual(['PUT /v1.0/actors/Plain/p1/reminders/deadline']);
});
