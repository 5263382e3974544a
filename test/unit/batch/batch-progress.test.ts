import { cancel, claimNext, newBatch, settle } from '../../../src/batch/batch-progress';

const base = { id: 'b', action: 'retry' as const, query: '', freeText: '*', createdAt: 10 };

describe('batch progress', () => {
  test('an id is claimed before its action, settled after it, and the last one completes the batch', () => {
    let b = newBatch({ ...base, matched: 2 });
    const c1 = claimNext(b)!;
    expect(c1).toMatchObject({ acting: 0, cursor: 1, state: 'RUNNING' });
    // Nothing else is claimed while one is under way.
    expect(claimNext(c1)).toBeUndefined();
    b = settle(c1, true, 20);
    expect(b).toMatchObject({ acting: null, done: 1, failed: 0, state: 'RUNNING' });
    b = settle(claimNext(b)!, false, 30);
    expect(b).toMatchObject({ acting: null, done: 1, failed: 1, state: 'COMPLETED', finishedAt: 30 });
    expect(claimNext(b)).toBeUndefined();
  });

  test('a batch matching nothing is complete at once', () => {
    expect(newBatch({ ...base, matched: 0 })).toMatchObject({ state: 'COMPLETED', finishedAt: 10 });
  });

  test('cancel stops between items only', () => {
    const b = newBatch({ ...base, matched: 3 });
    const claimed = claimNext(b)!;
    expect(cancel(claimed, 50)).toBe(claimed);
    expect(cancel(settle(claimed, true, 40), 50)).toMatchObject({ state: 'CANCELLED', finishedAt: 50, done: 1, cursor: 1 });
  });
});
