import { randomUUID } from 'node:crypto';
import type { ScheduleExecution, WorkflowSchedule } from '../../src/model/schedules';
import type { ScheduleStore } from '../../src/store/schedule-store';

/** The definition of a ScheduleStore: every adapter runs this one list. Stores may be shared, so every test uses fresh names. */
export interface ScheduleStoreUnderTest {
  store: ScheduleStore;
  cleanup(): Promise<void>;
}

const fresh = (prefix: string): string => `${prefix}_${randomUUID().slice(0, 8)}`;
const NOW = Date.now();

const schedule = (name: string, over: Partial<WorkflowSchedule> = {}): WorkflowSchedule => ({
  name,
  cronExpression: '0 * * * * *',
  zoneId: 'UTC',
  startWorkflowRequest: { name: 'wf', input: { a: 1 } },
  paused: false,
  runCatchupScheduleInstances: false,
  createTime: NOW,
  updatedTime: NOW,
  tags: [],
  ...over,
});

const execution = (scheduleName: string, scheduledTime: number, over: Partial<ScheduleExecution> = {}): ScheduleExecution => ({
  executionId: `${scheduleName}-${scheduledTime}`,
  scheduleName,
  scheduledTime,
  executionTime: scheduledTime + 5,
  workflowName: 'wf',
  workflowId: `wf-${scheduledTime}`,
  state: 'EXECUTED',
  zoneId: 'UTC',
  startWorkflowRequest: { name: 'wf' },
  ...over,
});

export function describeScheduleStoreContract(name: string, open: () => Promise<ScheduleStoreUnderTest>): void {
  describe(`ScheduleStore contract: ${name}`, () => {
    let u: ScheduleStoreUnderTest;
    beforeAll(async () => {
      u = await open();
    }, 120_000);
    afterAll(async () => {
      await u?.cleanup();
    });

    test('a schedule round-trips, is listed, replaced and deleted', async () => {
      const n = fresh('s');
      await u.store.putSchedule(schedule(n, { tags: [{ key: 'team', value: 'a' }], scheduleEndTime: NOW + 1000 }));
      expect(await u.store.getSchedule(n)).toEqual(schedule(n, { tags: [{ key: 'team', value: 'a' }], scheduleEndTime: NOW + 1000 }));
      await u.store.putSchedule(schedule(n, { paused: true, pausedReason: 'why' }));
      expect(await u.store.getSchedule(n)).toMatchObject({ paused: true, pausedReason: 'why', tags: [] });
      expect((await u.store.listSchedules()).map((s) => s.name)).toContain(n);
      expect(await u.store.deleteSchedule(n)).toBe(true);
      expect(await u.store.getSchedule(n)).toBeUndefined();
      expect(await u.store.deleteSchedule(n)).toBe(false);
      expect((await u.store.listSchedules()).map((s) => s.name)).not.toContain(n);
    });

    test('count answers how many schedules there are, counting no further than asked; a replaced one counts once', async () => {
      const before = await u.store.countSchedules(1_000_000);
      const names = [fresh('count'), fresh('count')];
      for (const n of names) await u.store.putSchedule(schedule(n));
      await u.store.putSchedule(schedule(names[0]!, { paused: true }));
      expect(await u.store.countSchedules(1_000_000)).toBe(before + 2);
      expect(await u.store.countSchedules(before + 1)).toBe(before + 1);
      await u.store.deleteSchedule(names[0]!);
      expect(await u.store.countSchedules(1_000_000)).toBe(before + 1);
    });

    test('the slot mark moves only from the expected value', async () => {
      const n = fresh('slot');
      expect(await u.store.lastSlot(n)).toBeUndefined();
      expect(await u.store.advanceSlot(n, undefined, 1000)).toBe(true);
      expect(await u.store.advanceSlot(n, undefined, 2000)).toBe(false); // another activation set it first
      expect(await u.store.lastSlot(n)).toBe(1000);
      expect(await u.store.advanceSlot(n, 999, 2000)).toBe(false);
      expect(await u.store.advanceSlot(n, 1000, 2000)).toBe(true);
      expect(await u.store.advanceSlot(n, 1000, 3000)).toBe(false);
      expect(await u.store.lastSlot(n)).toBe(2000);
    });

    test('of two racing claims of one slot exactly one wins', async () => {
      const n = fresh('race');
      await u.store.advanceSlot(n, undefined, 10);
      const wins = await Promise.all([u.store.advanceSlot(n, 10, 20), u.store.advanceSlot(n, 10, 20), u.store.advanceSlot(n, 10, 30)]);
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    test('deleting a schedule drops its slot mark', async () => {
      const n = fresh('del');
      await u.store.putSchedule(schedule(n));
      await u.store.advanceSlot(n, undefined, 5);
      await u.store.deleteSchedule(n);
      expect(await u.store.lastSlot(n)).toBeUndefined();
    });

    test('executions: newest first, filtered, paged, rewritten by id', async () => {
      const a = fresh('ea');
      const b = fresh('eb');
      await u.store.putSchedule(schedule(a));
      await u.store.putSchedule(schedule(b));
      const t = NOW - 10 * 60_000;
      for (let i = 0; i < 4; i++) await u.store.putExecution(execution(a, t + i * 1000));
      await u.store.putExecution(execution(b, t + 500, { state: 'FAILED', workflowId: undefined, reason: 'No such workflow', workflowName: 'other' }));
      const onlyA = await u.store.searchExecutions({ scheduleName: a, start: 0, size: 10 });
      expect(onlyA.totalHits).toBe(4);
      expect(onlyA.results.map((e) => e.scheduledTime)).toEqual([t + 3000, t + 2000, t + 1000, t]);
      const page = await u.store.searchExecutions({ scheduleName: a, start: 1, size: 2 });
      expect(page.results.map((e) => e.scheduledTime)).toEqual([t + 2000, t + 1000]);
      expect(page.totalHits).toBe(4);
      const asc = await u.store.searchExecutions({ scheduleName: a, start: 0, size: 2, ascending: true });
      expect(asc.results.map((e) => e.scheduledTime)).toEqual([t, t + 1000]);
      const failed = await u.store.searchExecutions({ scheduleName: b, state: 'FAILED', start: 0, size: 10 });
      expect(failed.results).toEqual(
        [execution(b, t + 500, { state: 'FAILED', workflowId: undefined, reason: 'No such workflow', workflowName: 'other' })].map(
          ({ workflowId: _w, ...e }) => e,
        ),
      );
      expect((await u.store.searchExecutions({ workflowName: 'other', start: 0, size: 100 })).results.map((e) => e.scheduleName)).toContain(b);
      expect((await u.store.searchExecutions({ text: `wf-${t + 1000}`, start: 0, size: 10 })).results.map((e) => e.executionId)).toEqual([`${a}-${t + 1000}`]);
      await u.store.putExecution(execution(a, t, { state: 'FAILED', reason: 'again' }));
      const again = await u.store.searchExecutions({ scheduleName: a, start: 0, size: 10 });
      expect(again.totalHits).toBe(4);
      expect(again.results[3]).toMatchObject({ state: 'FAILED', reason: 'again' });
    });

    test('executions over several days and schedules: pages in order, counted in full', async () => {
      const a = fresh('da');
      const b = fresh('db');
      await u.store.putSchedule(schedule(a));
      await u.store.putSchedule(schedule(b));
      const DAY = 24 * 3600_000;
      // Three days back to today, two schedules, a few firings each (some days empty for one of them).
      const times: Array<[string, number]> = [];
      for (let d = 0; d < 4; d++) {
        for (let i = 0; i < 3; i++) times.push([a, NOW - d * DAY - i * 60_000]);
        if (d !== 1) for (let i = 0; i < 2; i++) times.push([b, NOW - d * DAY - i * 60_000 - 30_000]);
      }
      for (const [name, t] of times) await u.store.putExecution(execution(name, t));
      const newest = times.map(([name, t]) => `${name}-${t}`).sort((x, y) => Number(y.split('-').pop()) - Number(x.split('-').pop()));
      const ids = (r: { results: ScheduleExecution[] }): string[] => r.results.map((e) => e.executionId);
      const ours = (r: { results: ScheduleExecution[] }): string[] => ids(r).filter((id) => id.startsWith(a) || id.startsWith(b));

      const one = await u.store.searchExecutions({ scheduleName: a, start: 2, size: 4 });
      expect(one.totalHits).toBe(12);
      expect(ids(one)).toEqual(newest.filter((id) => id.startsWith(a)).slice(2, 6));
      const oldest = await u.store.searchExecutions({ scheduleName: b, start: 1, size: 3, ascending: true });
      expect(oldest.totalHits).toBe(6);
      expect(ids(oldest)).toEqual(
        newest
          .filter((id) => id.startsWith(b))
          .reverse()
          .slice(1, 4),
      );
      // Across every schedule (others' executions may share the store): ours keep their order and all count.
      const every = await u.store.searchExecutions({ start: 0, size: 1000 });
      expect(ours(every)).toEqual(newest);
      const tail = await u.store.searchExecutions({ scheduleName: a, start: 10, size: 10 });
      expect(ids(tail)).toEqual(newest.filter((id) => id.startsWith(a)).slice(10));
      expect(tail.totalHits).toBe(12);
      expect((await u.store.searchExecutions({ scheduleName: a, start: 20, size: 10 })).results).toEqual([]);
    });

    test('pause all is a durable switch', async () => {
      await u.store.setAllPaused(true);
      expect(await u.store.allPaused()).toBe(true);
      await u.store.setAllPaused(false);
      expect(await u.store.allPaused()).toBe(false);
    });
  });
}
