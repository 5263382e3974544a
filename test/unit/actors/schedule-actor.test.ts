import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEDULE_REMINDER, ScheduleActor } from '../../../src/actors/schedule-actor';
import { ApiError } from '../../../src/services/errors';
import type { StartWorkflowRequest } from '../../../src/model/requests';
import type { WorkflowSchedule } from '../../../src/model/schedules';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';
import { derivedUuid } from '../../../src/ids';
import { FakeActorContext } from './fake-actor-context';
import { ScheduleCalls } from '../../../src/actors/protocol/schedule-protocol';

const RETRY_MS = 5000;

// The ScheduleActor over the real SQLite schedule store, a fixed clock and a recording starter
// (the workflow side is the API tests' business): what a reminder fires, and that two activations
// of one schedule start each slot's workflow under the same id.

/** A recent whole hour: execution records older than the retention span are pruned on write. */
const T0 = Math.floor(Date.now() / 3600_000) * 3600_000 - 3600_000;
let stores: SqliteStores;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-schedule-actor-'));
  stores = openSqliteStores(dir);
});
afterEach(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const schedule = (over: Partial<WorkflowSchedule> = {}): WorkflowSchedule => ({
  name: 'nightly',
  cronExpression: '0 * * * * *',
  zoneId: 'UTC',
  startWorkflowRequest: { name: 'wf', input: { a: 1 } },
  paused: false,
  runCatchupScheduleInstances: false,
  createTime: T0,
  updatedTime: T0,
  tags: [],
  ...over,
});

function actor(clock: { now: number }, starts: Array<{ req: StartWorkflowRequest; id: string }>, fail?: (req: StartWorkflowRequest) => Error | undefined) {
  const ctx = new FakeActorContext('ScheduleActor', 'nightly');
  /** Work the actor left for after its turn (workflow starts): run by `fire`, or dropped to stand for a crash. */
  const afterTurn: Array<() => Promise<void>> = [];
  const a: ScheduleActor = new ScheduleActor(ctx, {
    store: stores.schedules,
    startWorkflow: async (req, id) => {
      const err = fail?.(req);
      if (err) throw err;
      starts.push({ req, id });
      return id;
    },
    derivedId: derivedUuid,
    now: () => clock.now,
    graceMs: 30_000,
    maxCatchUp: 10,
    log: { warn: () => undefined },
    afterTurn: (work) => void afterTurn.push(work),
    self: (name) => ScheduleCalls.client({ invoke: (_type, _id, method, arg) => a.invoke(method, arg) as Promise<never> }, name),
    retryMs: RETRY_MS,
  });
  /** The reminder's turn, then what it left for after the turn. */
  const fire = async (): Promise<void> => {
    await a.onReminder(SCHEDULE_REMINDER);
    for (let work = afterTurn.shift(); work; work = afterTurn.shift()) await work();
  };
  return { a, ctx, fire, afterTurn };
}

const executions = async () => (await stores.schedules.searchExecutions({ scheduleName: 'nightly', start: 0, size: 100, ascending: true })).results;

test('sync arms the reminder at the next slot; a paused or deleted schedule has none', async () => {
  await stores.schedules.putSchedule(schedule());
  const clock = { now: T0 + 10_000 };
  const { a, ctx } = actor(clock, []);
  expect(await a.invoke('sync', undefined)).toEqual({ nextRunTime: T0 + 60_000 });
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBe(T0 + 60_000);
  await stores.schedules.putSchedule(schedule({ paused: true }));
  expect(await a.invoke('sync', undefined)).toEqual({});
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBeNull();
});

test('a reminder fires its slot once, with the slot in the input, and re-arms at the next', async () => {
  await stores.schedules.putSchedule(schedule());
  const clock = { now: T0 + 60_050 };
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const { ctx, fire } = actor(clock, starts);
  await fire();
  expect(starts).toHaveLength(1);
  expect(starts[0]!.req).toMatchObject({ name: 'wf', correlationId: 'nightly', input: { a: 1, _scheduledTime: T0 + 60_000, _executedTime: T0 + 60_050 } });
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBe(T0 + 120_000);
  expect(await stores.schedules.lastSlot('nightly')).toBe(T0 + 60_000);
  // A reminder delivered again (Dapr retries) finds the slot handled.
  await fire();
  expect(starts).toHaveLength(1);
  expect(await executions()).toMatchObject([{ scheduledTime: T0 + 60_000, state: 'EXECUTED', workflowId: starts[0]!.id }]);
});

test('two activations firing the same slot start it under the same workflow id and record it once', async () => {
  await stores.schedules.putSchedule(schedule());
  const clock = { now: T0 + 60_050 };
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const one = actor(clock, starts);
  const two = actor(clock, starts);
  await Promise.all([one.fire(), two.fire()]);
  expect(new Set(starts.map((s) => s.id)).size).toBe(1);
  expect(await executions()).toHaveLength(1);
  expect(await stores.schedules.lastSlot('nightly')).toBe(T0 + 60_000);
});

test('a refused start is recorded FAILED with its reason; a server error is left to the reminder retry', async () => {
  await stores.schedules.putSchedule(schedule());
  const clock = { now: T0 + 60_050 };
  const refused = actor(clock, [], () => new ApiError(404, 'No such workflow found by name: wf, version: null'));
  await refused.fire();
  expect(await executions()).toMatchObject([{ state: 'FAILED', reason: 'No such workflow found by name: wf, version: null' }]);
  clock.now = T0 + 120_050;
  const down = actor(clock, [], () => new ApiError(503, 'actor host is stopping'));
  await down.fire();
  expect(await stores.schedules.lastSlot('nightly')).toBe(T0 + 60_000); // not moved: the retry fires it
  expect(down.ctx.reminders.get(SCHEDULE_REMINDER)).toBe(clock.now + RETRY_MS);
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  clock.now += RETRY_MS;
  await actor(clock, starts).fire();
  expect(starts.map((s) => s.req.input!._scheduledTime)).toEqual([T0 + 120_000]);
  expect(await stores.schedules.lastSlot('nightly')).toBe(T0 + 120_000);
});

test('the firing turn starts nothing itself: the starts run after it, then the mark moves and the next slot is armed', async () => {
  await stores.schedules.putSchedule(schedule());
  const clock = { now: T0 + 60_050 };
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const { a, ctx, afterTurn } = actor(clock, starts);
  await a.onReminder(SCHEDULE_REMINDER);
  // The turn ended with no start made (a start is a call of another actor) and the slot still due.
  expect(starts).toEqual([]);
  expect(await stores.schedules.lastSlot('nightly')).toBeUndefined();
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBe(clock.now + RETRY_MS);
  expect(afterTurn).toHaveLength(1);
  await afterTurn.shift()!();
  expect(starts.map((s) => s.req.input!._scheduledTime)).toEqual([T0 + 60_000]);
  expect(await stores.schedules.lastSlot('nightly')).toBe(T0 + 60_000);
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBe(T0 + 120_000);
});

test('a crash between the firing turn and its starts: the reminder fires again and starts the slot under the same id', async () => {
  await stores.schedules.putSchedule(schedule());
  const clock = { now: T0 + 60_050 };
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const lost = actor(clock, starts);
  await lost.a.onReminder(SCHEDULE_REMINDER);
  lost.afterTurn.length = 0; // the replica died before the starts ran
  clock.now = lost.ctx.reminders.get(SCHEDULE_REMINDER)!;
  const next = actor(clock, starts);
  await next.fire();
  expect(starts).toHaveLength(1);
  expect(starts[0]!.id).toBe(derivedUuid(`schedule:nightly:${T0}:${T0 + 60_000}`));
  expect(await executions()).toMatchObject([{ scheduledTime: T0 + 60_000, state: 'EXECUTED', workflowId: starts[0]!.id }]);
  // Had the starts run as well, the same id again: one execution either way.
  await next.fire();
  expect(new Set(starts.map((s) => s.id)).size).toBe(1);
});

test('after downtime: without catch-up only the next slot fires; with catch-up the missed ones do', async () => {
  const clock = { now: T0 + 5 * 60_000 + 45_000 };
  await stores.schedules.putSchedule(schedule());
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const { ctx, fire } = actor(clock, starts);
  await fire();
  expect(starts).toEqual([]);
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBe(T0 + 6 * 60_000);

  await stores.schedules.putSchedule(schedule({ runCatchupScheduleInstances: true }));
  const caught: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const c = actor(clock, caught);
  // At start-up a catch-up schedule is armed at its oldest missed slot: due at once.
  expect(await c.a.invoke('sync', undefined)).toEqual({ nextRunTime: T0 + 60_000 });
  await c.fire();
  expect(caught.map((s) => s.req.input!._scheduledTime)).toEqual([1, 2, 3, 4, 5].map((i) => T0 + i * 60_000));
});

test('pause all marks slots handled without starting anything', async () => {
  await stores.schedules.putSchedule(schedule());
  await stores.schedules.setAllPaused(true);
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const { ctx, fire } = actor({ now: T0 + 60_050 }, starts);
  await fire();
  expect(starts).toEqual([]);
  expect(await stores.schedules.lastSlot('nightly')).toBe(T0 + 60_000);
  expect(ctx.reminders.get(SCHEDULE_REMINDER)).toBe(T0 + 120_000);
});

test('resume skips what was missed while paused', async () => {
  await stores.schedules.putSchedule(schedule({ runCatchupScheduleInstances: true }));
  const clock = { now: T0 + 10 * 60_000 + 5_000 };
  const starts: Array<{ req: StartWorkflowRequest; id: string }> = [];
  const { a, fire } = actor(clock, starts);
  await a.invoke('sync', { skipUntil: clock.now });
  await fire();
  expect(starts).toEqual([]);
  clock.now = T0 + 11 * 60_000 + 10;
  await fire();
  expect(starts.map((s) => s.req.input!._scheduledTime)).toEqual([T0 + 11 * 60_000]);
});
