import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimNext, INTERRUPTED, newBatch } from '../../../src/batch/batch-progress';
import { BatchRunner } from '../../../src/batch/batch-runner';
import type { BatchAction } from '../../../src/model/batch';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';

const silent = { info: () => undefined, warn: () => undefined };

describe('batch runner', () => {
  let dir: string;
  let stores: SqliteStores;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'baton-batch-runner-'));
    stores = openSqliteStores(dir);
  });
  afterEach(async () => {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runner = (act: (a: BatchAction, id: string) => Promise<unknown>, opts: { budget?: number; held?: () => boolean } = {}) =>
    new BatchRunner({
      store: stores.batches,
      act,
      lease: { acquire: async () => opts.held?.() ?? true, release: async () => undefined },
      intervalMs: 1000,
      leaseTtlMs: 3000,
      budget: opts.budget ?? 100,
      now: () => 1,
      log: silent,
    });
  const create = async (id: string, ids: string[], createdAt = 0) => {
    const b = newBatch({ id, action: 'terminate', query: '', freeText: '*', createdAt, matched: ids.length });
    await stores.batches.create(b, ids);
    return b;
  };

  test('acts on a budget per interval, oldest batch first, each id once, and reports failures with their reason', async () => {
    await create('old', ['a', 'b', 'c'], 1);
    await create('new', ['d', 'e'], 2);
    const acted: string[] = [];
    const r = runner(
      async (_a, id) => {
        acted.push(id);
        if (id === 'b') throw new Error('Workflow b is already COMPLETED');
      },
      { budget: 2 },
    );
    expect(await r.runOnce()).toBe(2);
    expect(acted).toEqual(['a', 'b']);
    expect(await r.runOnce()).toBe(2);
    expect(await r.runOnce()).toBe(1);
    expect(await r.runOnce()).toBe(0);
    expect(acted).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await stores.batches.get('old')).toMatchObject({ state: 'COMPLETED', done: 2, failed: 1 });
    expect(await stores.batches.failures('old')).toEqual([{ workflowId: 'b', reason: 'Workflow b is already COMPLETED' }]);
    expect(await stores.batches.get('new')).toMatchObject({ state: 'COMPLETED', done: 2, failed: 0 });
  });

  test('an id claimed when the last runner stopped is reported failed, not acted on again', async () => {
    const b = await create('crashed', ['a', 'b', 'c']);
    // The state a kill leaves between the claim of 'a' and its outcome.
    await stores.batches.saveProgress(claimNext(b)!);
    const acted: string[] = [];
    await runner(async (_a, id) => void acted.push(id)).runOnce();
    expect(acted).toEqual(['b', 'c']);
    expect(await stores.batches.get('crashed')).toMatchObject({ state: 'COMPLETED', done: 2, failed: 1 });
    expect(await stores.batches.failures('crashed')).toEqual([{ workflowId: 'a', reason: INTERRUPTED }]);
  });

  test('a cancel stops the batch before its next id; the id under way finishes', async () => {
    await create('c', ['a', 'b', 'c']);
    const acted: string[] = [];
    const r = runner(async (_a, id) => {
      acted.push(id);
      if (id === 'a') await stores.batches.requestCancel('c');
    });
    await r.runOnce();
    expect(acted).toEqual(['a']);
    expect(await stores.batches.get('c')).toMatchObject({ state: 'CANCELLED', done: 1, cursor: 1, acting: null });
  });

  test('a lease lost during an action records nothing: the claim is left for the replica that holds it now', async () => {
    await create('moved', ['a', 'b']);
    let held = true;
    const acted: string[] = [];
    const r = runner(
      async (_a, id) => {
        acted.push(id);
        held = false;
      },
      { held: () => held },
    );
    expect(await r.runOnce()).toBe(1);
    expect(acted).toEqual(['a']);
    expect(await stores.batches.get('moved')).toMatchObject({ state: 'RUNNING', acting: 0, cursor: 1, done: 0 });
    expect(await stores.batches.failures('moved')).toEqual([]);
  });

  test('without the lease nothing runs', async () => {
    await create('x', ['a']);
    const acted: string[] = [];
    expect(await runner(async (_a, id) => void acted.push(id), { held: () => false }).runOnce()).toBe(0);
    expect(acted).toEqual([]);
  });
});
