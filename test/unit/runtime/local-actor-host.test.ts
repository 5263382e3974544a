import Database from 'better-sqlite3';
import pino from 'pino';
import { QueueActor, type TakeResult } from '../../../src/actors/queue-actor';
import { LocalActorHost } from '../../../src/runtime/local/local-actor-host';
import { SqliteReminderStore } from '../../../src/runtime/local/reminder-store';
import type { Actor } from '../../../src/runtime/ports';

// The local host: one turn at a time per actor, idle deactivation, and queues never dropped while they hold entries.

function makeHost(clock: { now: number }) {
  const db = new Database(':memory:');
  const host = new LocalActorHost(new SqliteReminderStore(db), pino({ level: 'silent' }), { idleTimeoutMs: 1000, clock: () => clock.now });
  return { host, db };
}

const idleSweep = (host: LocalActorHost): void => (host as unknown as { deactivateIdle(): void }).deactivateIdle();

test('calls to one actor run one at a time, in order', async () => {
  const clock = { now: 0 };
  const { host } = makeHost(clock);
  const log: string[] = [];
  host.register('Slow', () => ({
    async invoke(_m: string, arg: unknown) {
      log.push(`start ${arg}`);
      await new Promise((r) => setImmediate(r));
      log.push(`end ${arg}`);
      return arg;
    },
    async onReminder() {},
  }));
  await host.start();
  await Promise.all([1, 2, 3].map((n) => host.invoke('Slow', 'a', 'run', n)));
  expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  await host.stop();
});

test('an idle actor is deactivated; a queue partition holding entries is kept', async () => {
  const clock = { now: 0 };
  const { host } = makeHost(clock);
  let deactivated = 0;
  host.register('Plain', (): Actor => ({
    async invoke() {
      return null;
    },
    async onReminder() {},
    async onDeactivate() {
      deactivated++;
    },
  }));
  host.register('QueueActor', (ctx) => new QueueActor(ctx, () => undefined));
  await host.start();
  await host.invoke('Plain', 'p', 'x');
  await host.invoke('QueueActor', 'q#0', 'push', { taskId: 't1', workflowId: 'w', priority: 0, visibleAt: 0 });
  clock.now = 10_000;
  idleSweep(host);
  await new Promise((r) => setImmediate(r));
  expect(deactivated).toBe(1);
  const r = await host.invoke<TakeResult>('QueueActor', 'q#0', 'take', { count: 5, now: clock.now });
  expect(r.entries.map((e) => e.taskId)).toEqual(['t1']);
  await host.stop();
});

test('a reminder survives a restart of the host and fires on the new one', async () => {
  const clock = { now: 1_000 };
  const db = new Database(':memory:');
  const fired: string[] = [];
  const actor = (id: string): Actor => ({
    async invoke(_m: string, arg: unknown) {
      return arg;
    },
    async onReminder(name: string) {
      fired.push(`${id}:${name}`);
    },
  });
  const first = new LocalActorHost(new SqliteReminderStore(db), pino({ level: 'silent' }), { idleTimeoutMs: 1000, clock: () => clock.now });
  let setReminder: ((n: string, d: number | null) => Promise<void>) | undefined;
  first.register('Timed', (ctx) => {
    setReminder = ctx.setReminder;
    return actor(ctx.id);
  });
  await first.start();
  await first.invoke('Timed', 'x', 'touch');
  await setReminder!('deadline', clock.now + 60_000);
  await first.stop(); // flushes reminder writes

  const second = new LocalActorHost(new SqliteReminderStore(db), pino({ level: 'silent' }), { idleTimeoutMs: 1000, clock: () => clock.now });
  second.register('Timed', (ctx) => actor(ctx.id));
  clock.now += 60_000; // already due when the new host starts
  await second.start();
  const until = Date.now() + 5000;
  while (fired.length === 0 && Date.now() < until) await new Promise((r) => setImmediate(r));
  expect(fired).toEqual(['x:deadline']);
  await second.stop();
});

test('past maxActive the least recently used idle activations go; busy ones, queues with entries and the newcomer stay', async () => {
  const clock = { now: 0 };
  const db = new Database(':memory:');
  const host = new LocalActorHost(new SqliteReminderStore(db), pino({ level: 'silent' }), { idleTimeoutMs: 60_000, maxActive: 10, clock: () => clock.now });
  const deactivated: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  host.register('Plain', (ctx): Actor => ({
    async invoke(method: string) {
      if (method === 'hold') await gate;
      return ctx.id;
    },
    async onReminder() {},
    async onDeactivate() {
      deactivated.push(ctx.id);
    },
  }));
  host.register('QueueActor', (ctx) => new QueueActor(ctx, () => undefined));
  await host.start();
  await host.invoke('QueueActor', 'q#0', 'push', { taskId: 't1', workflowId: 'w', priority: 0, visibleAt: 0 });
  const held = host.invoke('Plain', 'busy', 'hold');
  for (let i = 0; i < 8; i++) await host.invoke('Plain', `a${i}`, 'x');
  await host.invoke('Plain', 'a0', 'x'); // used again: now the most recent of the idle ones
  expect(host.activeCount).toBe(10);
  await host.invoke('Plain', 'new', 'x');
  await new Promise((r) => setImmediate(r));
  // 11 activations > 10: evicted down to 9, least recently used first (a1, a2), never the busy one or the queue.
  expect(deactivated).toEqual(['a1', 'a2']);
  expect(host.activeCount).toBe(9);
  release();
  await held;
  // An evicted actor comes back on its next call.
  expect(await host.invoke('Plain', 'a1', 'x')).toBe('a1');
  const r = await host.invoke<TakeResult>('QueueActor', 'q#0', 'take', { count: 5, now: clock.now });
  expect(r.entries.map((e) => e.taskId)).toEqual(['t1']);
  await host.stop();
});
