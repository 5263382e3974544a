import { indexPlan, removalWrites } from '../../../../src/store/cassandra/index-plan';
import type { IndexKeys } from '../../../../src/store/cassandra/rows';
import { executionStatements } from '../../../../src/store/cassandra/statements';

const q = executionStatements('ks');
const DAY = 86_400_000;
const running: IndexKeys = {
  name: 'order',
  version: 1,
  correlationId: 'c1',
  terminal: false,
  needsRecovery: true,
  runningBucket: DAY,
  recoveryBucket: DAY + 3_600_000,
  recoveryShard: 2,
};
const completed: IndexKeys = { ...running, terminal: true, needsRecovery: false };

/** Plan as readable "statement-name(params)" lines per stage. */
function names(stages: { query: string; params: unknown[] }[][]): string[][] {
  const byText = new Map(Object.entries(q).map(([k, v]) => [v, k]));
  return stages.map((s) => s.map((w) => `${byText.get(w.query)}(${w.params.join(',')})`));
}

describe('indexPlan', () => {
  it('indexes a new running execution: recovery entry before the batch, running and correlation after', () => {
    const plan = indexPlan(q, 'wf', undefined, running);
    expect(names(plan.before)).toEqual([[`insertRecovery(${DAY + 3_600_000},2,wf)`], [`insertBucket(recovery,${DAY + 3_600_000})`]]);
    expect(names(plan.after)).toEqual([
      [`insertRunning(order,${DAY},1,wf)`, 'upsertCorrelation(order,c1,wf,false)'],
      [`insertBucket(running:order,${DAY})`],
    ]);
  });

  it('writes nothing when the keys did not change (the common turn)', () => {
    expect(indexPlan(q, 'wf', running, { ...running })).toEqual({ before: [], after: [] });
  });

  it('on completion removes the running entry, flips the correlation flag, and deletes the recovery entry last', () => {
    const plan = indexPlan(q, 'wf', running, completed);
    expect(plan.before).toEqual([]);
    expect(names(plan.after)).toEqual([
      [`deleteRunning(order,${DAY},1,wf)`, 'upsertCorrelation(order,c1,wf,true)'],
      [`deleteRecovery(${DAY + 3_600_000},2,wf)`],
    ]);
  });

  it('keeps the recovery entry of a terminal execution that still owes effects', () => {
    const plan = indexPlan(q, 'wf', running, { ...completed, needsRecovery: true });
    expect(names(plan.after)).toEqual([[`deleteRunning(order,${DAY},1,wf)`, 'upsertCorrelation(order,c1,wf,true)']]);
  });

  it('re-indexes a retried execution (terminal back to running) before and after the batch', () => {
    const plan = indexPlan(q, 'wf', completed, running);
    expect(names(plan.before)[0]).toEqual([`insertRecovery(${DAY + 3_600_000},2,wf)`]);
    expect(names(plan.after)[0]).toEqual([`insertRunning(order,${DAY},1,wf)`, 'upsertCorrelation(order,c1,wf,false)']);
  });

  it('moves entries when a restart changes createTime bucket, version and correlation id', () => {
    const moved: IndexKeys = { ...running, version: 2, runningBucket: 5 * DAY, recoveryBucket: 5 * DAY, correlationId: 'c2' };
    const plan = indexPlan(q, 'wf', running, moved);
    expect(names(plan.before)).toEqual([[`insertRecovery(${5 * DAY},2,wf)`], [`insertBucket(recovery,${5 * DAY})`]]);
    expect(names(plan.after)).toEqual([
      [`insertRunning(order,${5 * DAY},2,wf)`, `deleteRunning(order,${DAY},1,wf)`, 'upsertCorrelation(order,c2,wf,false)', 'deleteCorrelation(order,c1,wf)'],
      [`insertBucket(running:order,${5 * DAY})`],
      [`deleteRecovery(${DAY + 3_600_000},2,wf)`],
    ]);
  });

  it('writes no correlation entry without a correlation id', () => {
    const plan = indexPlan(q, 'wf', undefined, { ...running, correlationId: null });
    expect(names(plan.after)[0]).toEqual([`insertRunning(order,${DAY},1,wf)`]);
  });
});

describe('removalWrites', () => {
  it('deletes every entry any known key set may have written, once each', () => {
    const writes = removalWrites(q, 'wf', [running, { ...running }, completed]);
    expect(names([writes])[0]).toEqual([
      `deleteRunning(order,${DAY},1,wf)`,
      'deleteCorrelation(order,c1,wf)',
      `deleteRecovery(${DAY + 3_600_000},2,wf)`,
    ]);
  });
});
