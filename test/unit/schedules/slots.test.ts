import { firstSlotAfter, nextSlots, planSlots, type NextSlot, type PlanInput } from '../../../src/schedules/slots';

// The pure slot planner with fixed clocks and a cron written as arithmetic: a slot every `every` ms.

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const every =
  (ms: number): NextSlot =>
  (t) =>
    Math.floor(t / ms) * ms + ms;
const MIN = 60_000;

const plan = (p: Partial<PlanInput>) => planSlots({ next: every(MIN), now: T0, lastSlot: T0, catchUp: false, maxCatchUp: 100, graceMs: 30_000, ...p });

describe('planSlots', () => {
  it('nothing due before the next slot: it names the next one', () => {
    expect(plan({ now: T0 + 59_000 })).toEqual({ fire: [], lastSlot: T0, nextDue: T0 + MIN });
  });

  it('a slot fires once when its reminder comes on time, and not again from the new mark', () => {
    const p = plan({ now: T0 + MIN + 200 });
    expect(p).toEqual({ fire: [T0 + MIN], lastSlot: T0 + MIN, nextDue: T0 + 2 * MIN });
    expect(plan({ now: T0 + MIN + 400, lastSlot: p.lastSlot }).fire).toEqual([]);
  });

  it('a slot later than the grace period is skipped without catch-up', () => {
    const p = plan({ now: T0 + MIN + 31_000 });
    expect(p).toEqual({ fire: [], lastSlot: T0, nextDue: T0 + 2 * MIN });
  });

  it('after downtime without catch-up, missed slots are skipped and only the next slot fires', () => {
    const down = plan({ now: T0 + 10 * MIN + 45_000 });
    expect(down.fire).toEqual([]);
    expect(down.nextDue).toBe(T0 + 11 * MIN);
    const next = plan({ now: T0 + 11 * MIN + 10, lastSlot: down.lastSlot });
    expect(next.fire).toEqual([T0 + 11 * MIN]);
  });

  it('after downtime with catch-up, every missed slot fires, oldest first', () => {
    const p = plan({ catchUp: true, now: T0 + 3 * MIN + 5_000 });
    expect(p).toEqual({ fire: [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN], lastSlot: T0 + 3 * MIN, nextDue: T0 + 4 * MIN });
  });

  it('catch-up is bounded: only the newest maxCatchUp slots fire', () => {
    const p = plan({ catchUp: true, maxCatchUp: 2, now: T0 + 5 * MIN });
    expect(p.fire).toEqual([T0 + 4 * MIN, T0 + 5 * MIN]);
    expect(p.lastSlot).toBe(T0 + 5 * MIN);
  });

  it('a per-second cron after days of downtime plans quickly and fires only the newest slots', () => {
    const now = T0 + 3 * 24 * 3600_000 + 500;
    const p = planSlots({ next: every(1000), now, lastSlot: T0, catchUp: true, maxCatchUp: 3, graceMs: 30_000 });
    expect(p.fire).toEqual([now - 2500, now - 1500, now - 500]);
    expect(p.nextDue).toBe(now + 500);
  });

  it('start and end times bound the window', () => {
    expect(plan({ startTime: T0 + 5 * MIN, now: T0 + 2 * MIN }).nextDue).toBe(T0 + 5 * MIN);
    expect(plan({ startTime: T0 + 5 * MIN, now: T0 + 2 * MIN }).fire).toEqual([]);
    const end = plan({ endTime: T0 + 2 * MIN, now: T0 + 2 * MIN + 100, lastSlot: T0 + MIN });
    expect(end).toEqual({ fire: [T0 + 2 * MIN], lastSlot: T0 + 2 * MIN, nextDue: undefined });
    expect(plan({ endTime: T0 + 2 * MIN, now: T0 + 3 * MIN + 100, lastSlot: T0 + 2 * MIN }).fire).toEqual([]);
  });

  it('a mark ahead of the clock (another replica fired) fires nothing', () => {
    expect(plan({ lastSlot: T0 + 2 * MIN, now: T0 + 2 * MIN })).toEqual({ fire: [], lastSlot: T0 + 2 * MIN, nextDue: T0 + 3 * MIN });
  });
});

describe('firstSlotAfter and nextSlots', () => {
  it('a slot equal to the start time counts; one after the end does not', () => {
    expect(firstSlotAfter({ next: every(MIN), startTime: T0 }, 0)).toBe(T0);
    expect(firstSlotAfter({ next: every(MIN), endTime: T0 }, T0)).toBeUndefined();
  });

  it('lists the next few slots inside the window', () => {
    expect(nextSlots({ next: every(MIN) }, T0, 3)).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
    expect(nextSlots({ next: every(MIN), endTime: T0 + 2 * MIN }, T0, 5)).toEqual([T0 + MIN, T0 + 2 * MIN]);
  });
});
