import { randomUUID } from 'node:crypto';
import { newBatch } from '../../src/batch/batch-progress';
import type { BatchRecord } from '../../src/model/batch';
import type { BatchStore } from '../../src/store/batch-store';

// What every BatchStore does: the snapshot kept in order, progress writes that never clear a cancel, failures in order.

const batchOf = (matched: number, createdAt: number): BatchRecord =>
  newBatch({ id: randomUUID(), action: 'terminate', query: 'status = RUNNING', freeText: '*', reason: 'r', createdAt, matched });

export function describeBatchStoreContract(name: string, open: () => Promise<{ store: BatchStore; cleanup: () => Promise<void> }>): void {
  describe(`BatchStore contract: ${name}`, () => {
    let store: BatchStore;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await open());
    });
    afterAll(async () => cleanup());

    test('a batch keeps its snapshot in order and reads back as written', async () => {
      const b = batchOf(3, 1000);
      await store.create(b, ['w-a', 'w-b', 'w-c']);
      expect(await store.get(b.id)).toEqual(b);
      expect(await Promise.all([0, 1, 2, 3].map((i) => store.workflowIdAt(b.id, i)))).toEqual(['w-a', 'w-b', 'w-c', undefined]);
      expect(await store.get('no-such-batch')).toBeUndefined();
    });

    test('progress writes never clear a cancel request, and a cancel keeps the progress', async () => {
      const b = batchOf(2, 2000);
      await store.create(b, ['x', 'y']);
      await store.requestCancel(b.id);
      const progressed = { ...b, cursor: 1, acting: 0 };
      await store.saveProgress(progressed);
      expect(await store.get(b.id)).toEqual({ ...progressed, cancelRequested: true });
    });

    test('failures read back in snapshot order; list is newest first; remove drops everything', async () => {
      const older = batchOf(3, 3000);
      const newer = batchOf(1, 4000);
      await store.create(older, ['f0', 'f1', 'f2']);
      await store.create(newer, ['g0']);
      await store.addFailure(older.id, 2, { workflowId: 'f2', reason: 'second' });
      await store.addFailure(older.id, 0, { workflowId: 'f0', reason: 'first' });
      expect(await store.failures(older.id)).toEqual([
        { workflowId: 'f0', reason: 'first' },
        { workflowId: 'f2', reason: 'second' },
      ]);
      const ids = (await store.list()).map((x) => x.id);
      expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
      await store.remove(older.id);
      expect(await store.get(older.id)).toBeUndefined();
      expect(await store.workflowIdAt(older.id, 0)).toBeUndefined();
      expect(await store.failures(older.id)).toEqual([]);
      expect((await store.list()).map((x) => x.id)).not.toContain(older.id);
    });
  });
}
