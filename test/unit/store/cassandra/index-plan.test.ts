import { indexPlan, removalWrites } from '../../../../src/store/cassandra/index-plan';
import { DEFAULT_INDEX_LAYOUT, type IndexKeys } from '../../../../src/store/cassandra/rows';
import { executionStatements } from '../../../../src/store/cassandra/statements';

const q = executionStatements('ks');
const L = DEFAULT_INDEX_LAYOUT;
const DAY = 86_400_000;
const NOW = 100 * DAY + 30_000;
const GEN = 100 * DAY;
const OLD = 97 * DAY; // a generation sealed long ago (a long-running execution)
const running: IndexKeys = {
  name: 'order',
  version: 1,
  correlationId: 'c1',
  terminal: false,
  needsRecovery: true,
  runningGen: GEN,
  recoveryGen: GEN,
  recoveryShard: 2,
};
const completed: IndexKeys = { ...running, terminal: true, needsRecovery: false, runningGen: 0, recoveryGen: 0 };

/** Plan as readable "statement-name(params)" lines per stage. */
function names(stages: { query: string; params: unknown[] }[][]): string[][] {
  const byText = new Map(Object.entries(q).map(([k, v]) => [v, k]));
  return stages.map((s) => s.map((w) => `${byText.get(w.query)}(${w.params.join(',')})`));
}

describe('indexPlan', () => {
  it('indexes a new running execution: recovery entry before the batch, running and correlation after, each with its registry rows', () => {
    const plan = indexPlan(q, 'wf', undefined, running, L, NOW);
    expect(names(plan.before)).toEqual([
      [`insertOpenEntry(recovery,${GEN},2,wf,,${GEN})`, `insertOpenGen(recovery,${GEN},${GEN})`, `insertOpenPage(recovery,${GEN})`],
    ]);
    expect(names(plan.after)).toEqual([
      [
        `insertOpenEntry(running:order,${GEN},0,wf,1,${GEN})`,
        `insertOpenGen(running:order,${GEN},${GEN})`,
        `insertOpenPage(running:order,${GEN})`,
        'upsertCorrelation(order,c1,wf,false)',
      ],
    ]);
    expect(plan.before[0]!.map((w) => w.registryKey)).toEqual([undefined, `recovery|${GEN}`, `recovery|page|${GEN}`]);
  });

  it('writes nothing when the keys did not change (the common turn)', () => {
    expect(indexPlan(q, 'wf', running, { ...running }, L, NOW)).toEqual({ before: [], after: [], keysInBatch: true });
  });

  it('on completion removes the running entry from its generation, flips the correlation flag, and deletes the recovery entry last', () => {
    const old = { ...running, runningGen: OLD, recoveryGen: OLD };
    const plan = indexPlan(q, 'wf', old, completed, L, NOW);
    expect(plan.before).toEqual([]);
    expect(names(plan.after)).toEqual([
      [`deleteOpenEntry(running:order,${OLD},0,wf)`, 'upsertCorrelation(order,c1,wf,true)'],
      [`deleteOpenEntry(recovery,${OLD},2,wf)`],
    ]);
  });

  it('keeps the recovery entry of a terminal execution that still owes effects', () => {
    const plan = indexPlan(q, 'wf', running, { ...completed, needsRecovery: true, recoveryGen: GEN }, L, NOW);
    expect(names(plan.after)).toEqual([[`deleteOpenEntry(running:order,${GEN},0,wf)`, 'upsertCorrelation(order,c1,wf,true)']]);
  });

  it('moves the running entry to the current generation when a restart changes the version, and the correlation entry with its id', () => {
    const prev = { ...running, runningGen: OLD, recoveryGen: OLD };
    const plan = indexPlan(q, 'wf', prev, { ...prev, version: 2, runningGen: GEN, correlationId: 'c2' }, L, NOW);
    expect(plan.before).toEqual([]);
    expect(names(plan.after)).toEqual([
      [
        `insertOpenEntry(running:order,${GEN},0,wf,2,${GEN})`,
        `insertOpenGen(running:order,${GEN},${GEN})`,
        `insertOpenPage(running:order,${GEN})`,
        `deleteOpenEntry(running:order,${OLD},0,wf)`,
        'upsertCorrelation(order,c2,wf,false)',
        'deleteCorrelation(order,c1,wf)',
      ],
    ]);
  });

  it('writes an entry of a generation sealed meanwhile (a late repair) to the carried index of the day, from that generation', () => {
    const plan = indexPlan(q, 'wf', undefined, { ...running, runningGen: OLD, recoveryGen: OLD, correlationId: null }, L, NOW);
    expect(names(plan.before)[0]![0]).toBe(`insertOpenEntry(recovery-carried,${100 * DAY},2,wf,,${OLD})`);
    expect(names(plan.before)[0]![3]).toBe(`insertOpenEntry(running-carried:order,${100 * DAY},0,wf,1,${OLD})`);
  });

  it('without a correlation id, writes every entry of a new execution before the batch, which then records the keys itself', () => {
    const plan = indexPlan(q, 'wf', undefined, { ...running, correlationId: null }, L, NOW);
    expect(names(plan.before)).toEqual([
      [
        `insertOpenEntry(recovery,${GEN},2,wf,,${GEN})`,
        `insertOpenGen(recovery,${GEN},${GEN})`,
        `insertOpenPage(recovery,${GEN})`,
        `insertOpenEntry(running:order,${GEN},0,wf,1,${GEN})`,
        `insertOpenGen(running:order,${GEN},${GEN})`,
        `insertOpenPage(running:order,${GEN})`,
      ],
    ]);
    expect(plan.after).toEqual([]);
    expect(plan.keysInBatch).toBe(true);
  });

  it('leaves the keys to a write after the batch whenever a delete or a correlation entry follows it', () => {
    expect(indexPlan(q, 'wf', undefined, running, L, NOW).keysInBatch).toBe(false);
    const old = { ...running, correlationId: null, runningGen: OLD, recoveryGen: OLD };
    expect(indexPlan(q, 'wf', old, { ...completed, correlationId: null }, L, NOW).keysInBatch).toBe(false);
  });
});

describe('removalWrites', () => {
  it('deletes every entry any known key set may have written, once each', () => {
    const writes = removalWrites(q, 'wf', [running, { ...running }, completed]);
    expect(names([writes])[0]).toEqual([
      `deleteOpenEntry(running:order,${GEN},0,wf)`,
      'deleteCorrelation(order,c1,wf)',
      `deleteOpenEntry(recovery,${GEN},2,wf)`,
    ]);
  });
});
