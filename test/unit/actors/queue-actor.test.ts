import { randomUUID } from 'node:crypto';
import { QueueActor, type PushArg, type QueueActorOptions, type TakeResult } from '../../../src/actors/queue-actor';
import type { ActorContext } from '../../../src/runtime/ports';
import { MemoryStateStore } from './memory-state-store';

// QueueActor semantics (priority then FIFO, delayed visibility, takes, idempotent push) and its
// persisted layout: a push or take writes one page plus meta whatever the backlog, and a new
// activation rebuilds the same queue from the pages.

const ID = 'q~0';

function actorOn(store: MemoryStateStore | undefined, options: QueueActorOptions = {}, woken: string[] = []): QueueActor {
  const ctx: ActorContext = { type: 'QueueActor', id: ID, setReminder: async () => undefined, state: store };
  return new QueueActor(ctx, (id) => woken.push(id), options);
}

async function activate(store: MemoryStateStore | undefined, options: QueueActorOptions = {}, woken: string[] = []): Promise<QueueActor> {
  const actor = actorOn(store, options, woken);
  await actor.onActivate();
  return actor;
}

const entry = (taskId: string, priority = 0, visibleAt = 0): PushArg => ({ taskId, workflowId: `wf-${taskId}`, priority, visibleAt });
const take = (a: QueueActor, count: number, now = Date.now()): Promise<TakeResult> => a.invoke('take', { count, now }) as Promise<TakeResult>;
const takenIds = async (a: QueueActor, count: number, now?: number): Promise<string[]> => (await take(a, count, now)).entries.map((e) => e.taskId);

const KiB = 1024;

describe('bounded writes over a large backlog', () => {
  const store = new MemoryStateStore();
  let actor: QueueActor;
  const ids: string[] = [];
  const N = 200_000;

  beforeAll(async () => {
    actor = await activate(store);
    // Mixed priorities and some delayed entries, so the rebuilt order is a real check.
    const later = Date.now() + 3_600_000;
    for (let i = 0; i < N; i += 10_000) {
      const batch: PushArg[] = [];
      for (let j = i; j < i + 10_000; j++) {
        const id = randomUUID();
        ids.push(id);
        batch.push({ taskId: id, workflowId: randomUUID(), priority: j % 3, visibleAt: j % 7 === 0 ? later : 0 });
      }
      await actor.invoke('pushMany', batch);
    }
  });

  test('a pushMany of 10,000 is written as pages, each transaction bounded', () => {
    for (const t of store.transacts) expect(t.bytes).toBeLessThanOrEqual(4 * 1024 * KiB);
    const first = store.transacts[1]; // the second batch: no migration, no first meta
    expect(first.ops.filter((o) => o.key.startsWith('page:')).length).toBe(20);
    expect(store.keys().filter((k) => k.startsWith('page:')).length).toBe(N / 500);
  });

  test('one push and one removal each write at most one page plus meta', async () => {
    let mark = store.transacts.length;
    await actor.invoke('push', { taskId: randomUUID(), workflowId: randomUUID(), priority: 0, visibleAt: 0 });
    let written = store.since(mark);
    expect(written).toHaveLength(1);
    expect(written[0].ops.length).toBeLessThanOrEqual(2);
    expect(written[0].bytes).toBeLessThan(64 * KiB);

    mark = store.transacts.length;
    await actor.invoke('remove', { taskId: ids[12_345] });
    written = store.since(mark);
    expect(written).toHaveLength(1);
    expect(written[0].ops.map((o) => o.key)).toEqual([`page:${Math.floor(12_345 / 500)}`]);
    expect(written[0].bytes).toBeLessThan(64 * KiB);
    ids.splice(12_345, 1);
  });

  test('a take writes only the pages it took from, in one transaction', async () => {
    const mark = store.transacts.length;
    await take(actor, 3);
    const written = store.since(mark);
    expect(written).toHaveLength(1);
    expect(written[0].bytes).toBeLessThan(4 * 64 * KiB);
  });

  test('a new activation over the same state rebuilds the same queue, reading one get per page', async () => {
    const pages = store.keys().filter((k) => k.startsWith('page:')).length;
    const gets = store.gets;
    const again = await activate(store);
    expect(store.gets - gets).toBe(1 + pages);
    expect(again.size()).toBe(actor.size());
    // Far enough ahead that every delay has run out.
    const far = Date.now() + 7_200_000;
    const before = await takenIds(actor, N + 10, far);
    expect(before.length).toBe(N - 3);
    expect(await takenIds(again, N + 10, far)).toEqual(before);
  }, 60_000);
});

describe('queue semantics (with and without a state store)', () => {
  for (const withStore of [true, false]) {
    const label = withStore ? 'with state' : 'in memory';
    const make = (): Promise<QueueActor> => activate(withStore ? new MemoryStateStore() : undefined, { pageSize: 4 });

    test(`${label}: priority first, then FIFO`, async () => {
      const a = await make();
      await a.invoke('pushMany', [entry('a', 2), entry('b', 1), entry('c', 2), entry('d', 0), entry('e', 1)]);
      expect(await takenIds(a, 10)).toEqual(['d', 'b', 'e', 'a', 'c']);
    });

    test(`${label}: delayed entries become visible at their time; nextVisibleAt says when`, async () => {
      const a = await make();
      const now = Date.now();
      await a.invoke('pushMany', [entry('late', 0, now + 60_000), entry('now', 5, 0)]);
      const first = await take(a, 10, now);
      expect(first.entries.map((e) => e.taskId)).toEqual(['now']);
      expect(first.nextVisibleAt).toBe(now + 60_000);
      expect(await takenIds(a, 10, now + 60_000)).toEqual(['late']);
    });

    test(`${label}: a take hands each entry out once; removal takes a pending one out`, async () => {
      const a = await make();
      const now = Date.now();
      await a.invoke('pushMany', [entry('x'), entry('y'), entry('z')]);
      expect(await a.invoke('remove', { taskId: 'y' })).toBe(true);
      expect(await a.invoke('remove', { taskId: 'y' })).toBe(false);
      expect(await takenIds(a, 1, now)).toEqual(['x']);
      expect(await a.invoke('remove', { taskId: 'x' })).toBe(false);
      expect(await takenIds(a, 10, now + 3_600_000)).toEqual(['z']);
    });

    test(`${label}: push is idempotent by task id and only moves visibility earlier`, async () => {
      const a = await make();
      const now = Date.now();
      expect(await a.invoke('push', entry('p', 0, now + 10_000))).toBe(true);
      expect(await a.invoke('push', entry('p', 0, now + 20_000))).toBe(false);
      expect(await a.invoke('push', entry('p', 0, now + 5_000))).toBe(true);
      expect(a.size()).toBe(1);
      expect(await takenIds(a, 5, now + 5_000)).toEqual(['p']);
      expect(a.size()).toBe(0);
      // A taken entry pushed back (its claim was postponed) is pushed anew.
      expect(await a.invoke('push', entry('p', 0, now + 6_000))).toBe(true);
      expect(await takenIds(a, 5, now + 5_000)).toEqual([]);
      expect(await takenIds(a, 5, now + 6_000)).toEqual(['p']);
    });
  }

  test('pollers are woken once per turn that made entries pollable, with the actor id', async () => {
    const woken: string[] = [];
    const a = await activate(new MemoryStateStore(), {}, woken);
    await a.invoke('pushMany', [entry('1'), entry('2'), entry('3')]);
    await a.invoke('push', entry('1')); // no change
    await a.invoke('remove', { taskId: '1' });
    expect(woken).toEqual([ID]);
  });

  test('the in-memory profile writes nothing and the queue still works', async () => {
    const a = await activate(undefined);
    await a.invoke('pushMany', [entry('1'), entry('2')]);
    expect(a.keepAlive()).toBe(true);
    expect(await takenIds(a, 5)).toEqual(['1', '2']);
  });
});

describe('persisted layout', () => {
  test('a new activation holds what was left, in the same order, delays and pushed-back entries kept', async () => {
    const store = new MemoryStateStore();
    const a = await activate(store, { pageSize: 3 });
    const now = Date.now();
    await a.invoke('pushMany', [entry('a', 1), entry('b', 0), entry('c', 1), entry('d', 0, now + 60_000), entry('e', 2), entry('f', 0), entry('g', 1)]);
    await take(a, 2, now); // b, f
    await a.invoke('push', entry('b', 0, now + 30_000)); // b's claim postponed: pushed back
    await a.invoke('push', entry('h', 0));
    const b = await activate(store, { pageSize: 3 });
    expect(b.size()).toBe(7);
    expect(await takenIds(b, 10, now)).toEqual(['h', 'a', 'c', 'g', 'e']);
    expect(await takenIds(b, 10, now + 30_000)).toEqual(['b']);
    expect(await takenIds(b, 10, now + 60_000)).toEqual(['d']);
  });

  test('removals anywhere keep pages dense: activation reads at most 4·backlog/pageSize + 1 pages', async () => {
    const store = new MemoryStateStore();
    const pageSize = 20;
    const a = await activate(store, { pageSize });
    const ids = Array.from({ length: 2000 }, (_, i) => `t${i}`);
    await a.invoke(
      'pushMany',
      ids.map((id, i) => entry(id, i % 4)),
    );
    let x = 7;
    const keep: string[] = [];
    for (const id of ids) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      if (x % 10 !== 0) await a.invoke('remove', { taskId: id });
      else keep.push(id);
    }
    for (let i = 0; i < 50; i++) await a.invoke('push', entry(`n${i}`, i % 4));
    const backlog = keep.length + 50;
    const pages = store.keys().filter((k) => k.startsWith('page:')).length;
    expect(pages).toBeLessThanOrEqual(Math.floor((4 * backlog) / pageSize) + 1);
    for (const t of store.transacts.slice(1)) expect(t.ops.filter((o) => o.key.startsWith('page:')).length).toBeLessThanOrEqual(2);
    const gets = store.gets;
    const b = await activate(store, { pageSize });
    expect(store.gets - gets).toBe(1 + pages);
    const far = Date.now() + 1000;
    expect(await takenIds(b, 5000, far)).toEqual(await takenIds(a, 5000, far));
  });

  test('a pushMany larger than one transaction is split into several bounded ones, meta last', async () => {
    const store = new MemoryStateStore();
    const a = await activate(store, { pageSize: 50, maxTransactBytes: 8 * KiB });
    await a.invoke(
      'pushMany',
      Array.from({ length: 1000 }, (_, i) => entry(`task-${i}`)),
    );
    expect(store.transacts.length).toBeGreaterThanOrEqual(5);
    for (const t of store.transacts) expect(t.bytes).toBeLessThanOrEqual(8 * KiB);
    expect(store.transacts.at(-1)!.ops.at(-1)!.key).toBe('meta');
    const b = await activate(store, { pageSize: 50 });
    expect(await takenIds(b, 2000)).toEqual(Array.from({ length: 1000 }, (_, i) => `task-${i}`));
  });

  test('a failed save is retried by the next turn', async () => {
    const store = new MemoryStateStore();
    const a = await activate(store, { pageSize: 2 });
    await a.invoke('pushMany', [entry('1'), entry('2')]);
    store.failNext = true;
    await expect(a.invoke('push', entry('3'))).rejects.toThrow('unavailable');
    await a.invoke('push', entry('4'));
    const b = await activate(store, { pageSize: 2 });
    expect(await takenIds(b, 10)).toEqual(['1', '2', '3', '4']);
  });

  test('an entry left in two pages by a partial save is kept once, and the stale page rewritten', async () => {
    const store = new MemoryStateStore();
    store.data.set('meta', JSON.stringify({ v: 1, pages: [0, 1, 2] }));
    store.data.set(
      'page:0',
      JSON.stringify([
        ['a', 'w', 0, 0, 1],
        ['b', 'w', 0, 0, 2],
      ]),
    );
    store.data.set(
      'page:1',
      JSON.stringify([
        ['b', 'w', 0, 0, 2],
        ['c', 'w', 0, 0, 3],
      ]),
    );
    // page:2 is listed but missing
    const a = await activate(store);
    expect(a.size()).toBe(3);
    await a.invoke('push', entry('d'));
    expect(JSON.parse(store.data.get('page:1')!).map((e: unknown[]) => e[0])).not.toContain('b');
    expect(JSON.parse(store.data.get('meta')!).pages).not.toContain(2);
    const b = await activate(store);
    expect(await takenIds(b, 10)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('migration: the old single `entries` value becomes pages once, in queue order', async () => {
    const store = new MemoryStateStore();
    const legacy = Array.from({ length: 1234 }, (_, i) => ({ taskId: `old-${i}`, workflowId: `w${i}`, priority: i % 2, visibleAt: 0 }));
    store.data.set('entries', JSON.stringify(legacy));
    const woken: string[] = [];
    const a = await activate(store, { pageSize: 100 }, woken);
    expect(store.data.has('entries')).toBe(false);
    expect(store.data.has('meta')).toBe(true);
    expect(store.keys().filter((k) => k.startsWith('page:'))).toHaveLength(13);
    expect(woken).toEqual([ID]);
    const expected = [...legacy.filter((e) => e.priority === 0), ...legacy.filter((e) => e.priority === 1)].map((e) => e.taskId);
    const gets = store.gets;
    const b = await activate(store, { pageSize: 100 });
    expect(store.gets - gets).toBe(1 + 13); // meta and pages; `entries` is no longer read
    expect(await takenIds(b, 5000)).toEqual(expected);
    expect(await takenIds(a, 5000)).toEqual(expected);
  });

  test('migration split over several transactions deletes `entries` only with meta, in the last one', async () => {
    const store = new MemoryStateStore();
    store.data.set('entries', JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ taskId: `old-${i}`, workflowId: 'w', priority: 0, visibleAt: 0 }))));
    await activate(store, { pageSize: 50, maxTransactBytes: 8 * KiB });
    expect(store.transacts.length).toBeGreaterThan(1);
    const last = store.transacts.at(-1)!.ops.map((o) => o.key);
    expect(last.slice(-2)).toEqual(['meta', 'entries']);
    for (const t of store.transacts.slice(0, -1)) expect(t.ops.map((o) => o.key)).not.toContain('entries');
  });

  test('an empty partition stays empty and writes nothing until pushed', async () => {
    const store = new MemoryStateStore();
    const a = await activate(store);
    expect(await takenIds(a, 10)).toEqual([]);
    expect(store.transacts).toHaveLength(0);
    await a.invoke('push', entry('1'));
    await a.invoke('take', { count: 1, now: Date.now() });
    expect(store.keys()).toEqual(['meta']);
    expect(JSON.parse(store.data.get('meta')!)).toEqual({ v: 1, pages: [] });
  });
});
