import {
  bucketIsPast,
  bucketOf,
  bucketsBetween,
  decodeKeys,
  DEFAULT_INDEX_LAYOUT,
  effectiveDeletes,
  encodeKeys,
  executionFromRows,
  indexKeysOf,
  sameKeys,
  shardOf,
  toNumber,
} from '../../../../src/store/cassandra/rows';
import { types } from 'cassandra-driver';
import { makeTask, makeWorkflowRecord, T0 } from '../../../contracts/fixtures';

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe('bucket maths', () => {
  it('floors a time to the start of its bucket', () => {
    expect(bucketOf(T0, DAY)).toBe(T0);
    expect(bucketOf(T0 + DAY - 1, DAY)).toBe(T0);
    expect(bucketOf(T0 + DAY, DAY)).toBe(T0 + DAY);
    expect(bucketOf(T0 + 90 * 60_000, HOUR)).toBe(T0 + HOUR);
  });

  it('lists the buckets covering a range, oldest first', () => {
    expect(bucketsBetween(T0 + 5, T0 + 2 * DAY + 1, DAY)).toEqual([T0, T0 + DAY, T0 + 2 * DAY]);
    expect(bucketsBetween(T0 + 5, T0 + 6, DAY)).toEqual([T0]);
  });

  it('calls a bucket past only once its whole width is behind now', () => {
    expect(bucketIsPast(T0, DAY, T0 + DAY - 1)).toBe(false);
    expect(bucketIsPast(T0, DAY, T0 + DAY)).toBe(true);
  });

  it('shards ids stably and spreads them', () => {
    expect(shardOf('wf-1', 4)).toBe(shardOf('wf-1', 4));
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, 4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });
});

describe('index keys', () => {
  it('derives buckets, shard and flags from the workflow and outbox', () => {
    const wf = makeWorkflowRecord({ workflowId: 'wf-a', workflowName: 'order', workflowVersion: 3, createTime: T0 + DAY + 2 * HOUR + 5, correlationId: 'c' });
    const k = indexKeysOf(wf, [], DEFAULT_INDEX_LAYOUT);
    expect(k).toEqual({
      name: 'order',
      version: 3,
      correlationId: 'c',
      terminal: false,
      needsRecovery: true,
      runningBucket: T0 + DAY,
      recoveryBucket: T0 + DAY + 2 * HOUR,
      recoveryShard: shardOf('wf-a', DEFAULT_INDEX_LAYOUT.recoveryShards),
    });
  });

  it('needs recovery while non-terminal or while the outbox is not empty', () => {
    const done = makeWorkflowRecord({ status: 'COMPLETED' });
    expect(indexKeysOf(done, [], DEFAULT_INDEX_LAYOUT)).toMatchObject({ terminal: true, needsRecovery: false, correlationId: null });
    expect(indexKeysOf(done, [{ kind: 'index', workflowId: done.workflowId, taskIds: [] }], DEFAULT_INDEX_LAYOUT).needsRecovery).toBe(true);
    expect(indexKeysOf(makeWorkflowRecord({ status: 'PAUSED' }), [], DEFAULT_INDEX_LAYOUT)).toMatchObject({ terminal: false, needsRecovery: true });
  });

  it('encodes keys canonically and round-trips them', () => {
    const k = indexKeysOf(makeWorkflowRecord(), [], DEFAULT_INDEX_LAYOUT);
    const shuffled = Object.fromEntries(Object.entries(k).reverse()) as typeof k;
    expect(encodeKeys(shuffled)).toBe(encodeKeys(k));
    expect(decodeKeys(encodeKeys(k))).toEqual(k);
    expect(decodeKeys(null)).toBeUndefined();
    expect(sameKeys(k, { ...k })).toBe(true);
    expect(sameKeys(k, { ...k, terminal: true })).toBe(false);
    expect(sameKeys(undefined, k)).toBe(false);
    expect(sameKeys(undefined, undefined)).toBe(true);
  });
});

describe('execution rows', () => {
  const wf = makeWorkflowRecord({ workflowId: 'wf-r' });
  const t1 = makeTask({ taskId: 't1', seq: 1 });
  const t2 = makeTask({ taskId: 't2', seq: 2 });
  const head = { rev: types.Long.fromNumber(4), workflow_json: JSON.stringify(wf), outbox_json: '[]' };

  it('rebuilds the execution from its partition rows, tasks in seq order (rows come in task id order)', () => {
    const rows = [
      { ...head, task_id: 't2', task_json: JSON.stringify(t2) },
      { ...head, task_id: 't1', task_json: JSON.stringify(t1) },
    ];
    expect(executionFromRows(rows)).toEqual({ workflow: wf, tasks: [t1, t2], outbox: [], rev: 4 });
  });

  it('reads an execution without tasks (one row, null clustering key)', () => {
    expect(executionFromRows([{ ...head, task_id: null, task_json: null }])).toEqual({ workflow: wf, tasks: [], outbox: [], rev: 4 });
  });

  it('treats a partition without a static row (or no rows) as no execution', () => {
    expect(executionFromRows([])).toBeUndefined();
    expect(executionFromRows([{ rev: null, workflow_json: null, outbox_json: null, task_id: 't1', task_json: JSON.stringify(t1) }])).toBeUndefined();
  });

  it('converts driver Longs and numbers', () => {
    expect(toNumber(types.Long.fromNumber(T0))).toBe(T0);
    expect(toNumber(7)).toBe(7);
    expect(() => toNumber('x')).toThrow();
  });

  it('drops deletes of tasks upserted in the same turn (a batch delete would shadow the insert)', () => {
    expect(effectiveDeletes(['t1', 't2', 't2', 't3'], [t1])).toEqual(['t2', 't3']);
  });
});
