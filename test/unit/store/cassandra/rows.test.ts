import {
  bucketOf,
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

  it('shards ids stably and spreads them', () => {
    expect(shardOf('wf-1', 4)).toBe(shardOf('wf-1', 4));
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, 4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });
});

describe('index keys', () => {
  const L = DEFAULT_INDEX_LAYOUT;
  const NOW = T0 + DAY + 2 * HOUR + 90_500;
  const GEN = T0 + DAY + 2 * HOUR + 60_000;

  it('puts new entries in the generation of the write time, and derives shard and flags', () => {
    const wf = makeWorkflowRecord({ workflowId: 'wf-a', workflowName: 'order', workflowVersion: 3, createTime: T0, correlationId: 'c' });
    const k = indexKeysOf(wf, [], L, undefined, NOW);
    expect(k).toEqual({
      name: 'order',
      version: 3,
      correlationId: 'c',
      terminal: false,
      needsRecovery: true,
      runningGen: GEN,
      recoveryGen: GEN,
      recoveryShard: shardOf('wf-a', L.recoveryShards),
    });
  });

  it('keeps the generation of an entry that stays, and moves one that changes', () => {
    const wf = makeWorkflowRecord({ workflowName: 'order', workflowVersion: 3 });
    const prev = indexKeysOf(wf, [], L, undefined, NOW);
    const later = NOW + 5 * DAY;
    expect(indexKeysOf({ ...wf, variables: { x: 1 } }, [], L, prev, later)).toEqual(prev);
    // A restart on a new definition version is a new running entry; the recovery entry stays.
    expect(indexKeysOf({ ...wf, workflowVersion: 4 }, [], L, prev, later)).toMatchObject({ runningGen: bucketOf(later, L.genMs), recoveryGen: GEN });
    const done = indexKeysOf({ ...wf, status: 'COMPLETED' }, [], L, prev, later);
    expect(done).toMatchObject({ terminal: true, needsRecovery: false, runningGen: 0, recoveryGen: 0 });
    // Retried: back in both indexes, in the generation of the retry.
    expect(indexKeysOf(wf, [], L, done, later)).toMatchObject({ runningGen: bucketOf(later, L.genMs), recoveryGen: bucketOf(later, L.genMs) });
  });

  it('needs recovery while non-terminal or while the outbox is not empty', () => {
    const done = makeWorkflowRecord({ status: 'COMPLETED' });
    expect(indexKeysOf(done, [], L, undefined, NOW)).toMatchObject({ terminal: true, needsRecovery: false, correlationId: null });
    expect(indexKeysOf(done, [{ kind: 'index', workflowId: done.workflowId, taskIds: [] }], L, undefined, NOW)).toMatchObject({
      needsRecovery: true,
      recoveryGen: GEN,
    });
    expect(indexKeysOf(makeWorkflowRecord({ status: 'PAUSED' }), [], L, undefined, NOW)).toMatchObject({ terminal: false, needsRecovery: true });
  });

  it('encodes keys canonically and round-trips them', () => {
    const k = indexKeysOf(makeWorkflowRecord(), [], DEFAULT_INDEX_LAYOUT, undefined, T0);
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
