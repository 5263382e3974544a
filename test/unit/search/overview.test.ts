import Database from 'better-sqlite3';
import { SqliteSearchIndex } from '../../../src/search/sqlite/sqlite-index';
import { OVERVIEW_MAX_NAMES, overviewWindow, shapeOverview, type OverviewRows } from '../../../src/search/overview';

// The overview's window and its shaping: bounded series for the most active names, failures, the slowest
// workflows, task waits and queue depths, each cut to the limit.

const MIN = 60_000;
const T = Date.UTC(2026, 0, 1, 12, 0, 0);
const none: OverviewRows = { started: [], ended: [], durations: [], taskWaits: [] };

describe('overview window', () => {
  it('is the 60 whole minutes ending with the one now is in', () => {
    expect(overviewWindow(T + 30 * 1000)).toEqual({ from: T - 59 * MIN, to: T + MIN, bucketMs: MIN, maxNames: OVERVIEW_MAX_NAMES });
    expect(overviewWindow(T)).toEqual(overviewWindow(T + MIN - 1));
  });
});

describe('shapeOverview', () => {
  const w = overviewWindow(T);

  it('gives one count per minute for the most active names; completed and failed (FAILED, TIMED_OUT) apart, TERMINATED in neither', () => {
    const o = shapeOverview(
      w,
      {
        ...none,
        started: [
          { name: 'a', bucket: 0, count: 3 },
          { name: 'a', bucket: 59, count: 1 },
          { name: 'b', bucket: 10, count: 1 },
          { name: 'quiet', bucket: 5, count: 1 },
          { name: 'a', bucket: 60, count: 7 },
        ],
        ended: [
          { name: 'a', status: 'COMPLETED', bucket: 59, count: 2 },
          { name: 'b', status: 'FAILED', bucket: 10, count: 1 },
          { name: 'b', status: 'TIMED_OUT', bucket: 11, count: 2 },
          { name: 'b', status: 'TERMINATED', bucket: 11, count: 1 },
        ],
      },
      {},
      2,
    );
    expect(o.buckets).toHaveLength(60);
    expect(o.buckets[0]).toBe(w.from);
    expect(o.buckets[59]).toBe(w.to - MIN);
    expect(o.series.map((s) => s.name)).toEqual(['a', 'b']);
    const [a, b] = o.series;
    expect(a!.started[0]).toBe(3);
    expect(a!.started[59]).toBe(1);
    expect(a!.started.reduce((x, y) => x + y)).toBe(4); // the out-of-range bucket is dropped
    expect(a!.completed[59]).toBe(2);
    expect(b!.failed[10]).toBe(1);
    expect(b!.failed[11]).toBe(2);
    expect(b!.failed.reduce((x, y) => x + y)).toBe(3);
    expect(o.failing).toEqual([{ name: 'b', failed: 3, ended: 4 }]);
  });

  it('orders the slowest by average, task waits by average, queues by depth (empty ones left out), each cut to the limit', () => {
    const o = shapeOverview(
      w,
      {
        ...none,
        durations: [
          { name: 'fast', count: 9, avgMs: 10.4, maxMs: 20 },
          { name: 'slow', count: 1, avgMs: 5000.6, maxMs: 5000.6 },
          { name: 'middle', count: 2, avgMs: 300, maxMs: 400 },
        ],
        taskWaits: [
          { taskType: 'x', count: 2, avgMs: 1, maxMs: 1 },
          { taskType: 'y', count: 2, avgMs: 200, maxMs: 300 },
        ],
      },
      { q1: 5, q2: 0, q3: 9, q4: 1 },
      2,
    );
    expect(o.slowest).toEqual([
      { name: 'slow', count: 1, avgMs: 5001, maxMs: 5001 },
      { name: 'middle', count: 2, avgMs: 300, maxMs: 400 },
    ]);
    expect(o.taskWaits.map((t) => t.taskType)).toEqual(['y', 'x']);
    expect(o.queues).toEqual([
      { taskType: 'q3', depth: 9 },
      { taskType: 'q1', depth: 5 },
    ]);
  });
});

describe('the SQLite index aggregates minute by minute', () => {
  it('lets the event loop turn between the minutes of the window', async () => {
    const index = new SqliteSearchIndex(new Database(':memory:'));
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await index.overview(overviewWindow(T));
    done = true;
    expect(turns).toBeGreaterThanOrEqual(59);
  });
});
