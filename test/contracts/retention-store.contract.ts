import type { RetentionStore } from '../../src/retention/ports';

/** What the purge relies on from its journal and archive lookup, for every adapter. */
export function describeRetentionStoreContract(name: string, open: () => Promise<{ store: RetentionStore; cleanup(): Promise<void> }>): void {
  describe(`retention store contract (${name})`, () => {
    let store: RetentionStore;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await open());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    test('a begun pass is unfinished with its items until it finishes; finishing another pass id leaves it', async () => {
      expect(await store.unfinishedPasses()).toEqual([]);
      const items = [
        { workflowId: 'w-1', archive: true },
        { workflowId: 'w-2', archive: false },
      ];
      await store.beginPass('p-1', items, 1000);
      expect(await store.unfinishedPasses()).toEqual([{ passId: 'p-1', items }]);
      await store.finishPass('p-other');
      expect(await store.unfinishedPasses()).toEqual([{ passId: 'p-1', items }]);
      await store.finishPass('p-1');
      expect(await store.unfinishedPasses()).toEqual([]);
      await store.finishPass('p-1'); // repeating it is harmless
      expect(await store.unfinishedPasses()).toEqual([]);
    });

    test('a period walk is kept per index until cleared, and a pass journal does not see it', async () => {
      expect(await store.periodWalk('idx_2026.01')).toBeUndefined();
      await store.savePeriodWalk('idx_2026.01', { mode: 'drop' });
      await store.savePeriodWalk('idx_2026.01', { mode: 'drop', after: 'id-5' });
      await store.savePeriodWalk('idx_2026.02', { mode: 'undo', after: 'a', upTo: 'z' });
      expect(await store.periodWalk('idx_2026.01')).toEqual({ mode: 'drop', after: 'id-5' });
      expect(await store.periodWalk('idx_2026.02')).toEqual({ mode: 'undo', after: 'a', upTo: 'z' });
      expect(await store.unfinishedPasses()).toEqual([]);
      await store.savePeriodWalk('idx_2026.01', undefined);
      expect(await store.periodWalk('idx_2026.01')).toBeUndefined();
      expect(await store.periodWalk('idx_2026.02')).toEqual({ mode: 'undo', after: 'a', upTo: 'z' });
    });

    test('an archived execution is found by id with its key and final status; others are not', async () => {
      const a = {
        workflowId: 'wf-archived',
        key: 'archive/2026/01/02/wf-archived.json',
        workflowName: 'n',
        status: 'FAILED',
        endTime: 1_767_312_000_000,
        archivedAt: 1_767_398_400_000,
      };
      await store.recordArchive(a);
      await store.recordArchive(a); // repeated by a pass that resumes
      expect(await store.archived('wf-archived')).toEqual(a);
      expect(await store.archived('wf-never')).toBeUndefined();
    });
  });
}
