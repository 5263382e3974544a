import { LocalLineageCounters } from '../../../src/limits/local/local-lineage-counters';
import { StartAdmission } from '../../../src/services/start-admission';

// Whether a start that descends from another execution may happen: generation first, then its root's counters.

const settings = { maxGenerations: 3, maxDescendantsPerRoot: 2, maxStartsPerRootPerSecond: 100 };
const T = 1_700_000_000_000;

describe('StartAdmission', () => {
  it('never counts or refuses a root (generation 0)', async () => {
    const a = new StartAdmission(new LocalLineageCounters(), { ...settings, maxDescendantsPerRoot: 1 }, () => T);
    for (const id of ['r1', 'r2', 'r3']) expect(await a.refusal('wf', id, { rootWorkflowId: id, generation: 0 })).toBeUndefined();
  });

  it('refuses past the generation cap without counting the start', async () => {
    const a = new StartAdmission(new LocalLineageCounters(), settings, () => T);
    expect(await a.refusal('wf', 'deep', { rootWorkflowId: 'r', generation: 4 })).toEqual({
      limit: 'generations',
      reason: 'Workflow wf not started: it would be generation 4 below root execution r, over the limit of 3 (BATON_MAX_WORKFLOW_GENERATIONS)',
    });
    expect(await a.refusal('wf', 'c1', { rootWorkflowId: 'r', generation: 3 })).toBeUndefined();
    expect(await a.refusal('wf', 'c2', { rootWorkflowId: 'r', generation: 1 })).toBeUndefined();
  });

  it('refuses past the descendants of one root, naming the setting', async () => {
    const a = new StartAdmission(new LocalLineageCounters(), settings, () => T);
    await a.refusal('wf', 'c1', { rootWorkflowId: 'r', generation: 1 });
    await a.refusal('wf', 'c2', { rootWorkflowId: 'r', generation: 2 });
    expect(await a.refusal('wf', 'c3', { rootWorkflowId: 'r', generation: 2 })).toEqual({
      limit: 'descendants',
      reason: 'Workflow wf not started: root execution r already has 2 descendant executions, the limit (BATON_MAX_DESCENDANTS_PER_ROOT)',
    });
  });

  it('refuses past the starts of one root in a second, naming the setting', async () => {
    let now = T;
    const a = new StartAdmission(new LocalLineageCounters(), { ...settings, maxDescendantsPerRoot: 10, maxStartsPerRootPerSecond: 1 }, () => now);
    expect(await a.refusal('wf', 'c1', { rootWorkflowId: 'r', generation: 1 })).toBeUndefined();
    expect(await a.refusal('wf', 'c2', { rootWorkflowId: 'r', generation: 1 })).toEqual({
      limit: 'rate',
      reason:
        'Workflow wf not started: root execution r started 1 descendant executions within the last second, the limit (BATON_MAX_STARTS_PER_ROOT_PER_SECOND)',
    });
    now += 1001;
    expect(await a.refusal('wf', 'c2', { rootWorkflowId: 'r', generation: 1 })).toBeUndefined();
  });
});
