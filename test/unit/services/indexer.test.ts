import Database from 'better-sqlite3';
import pino from 'pino';
import { SqliteSearchIndex } from '../../../src/search/sqlite/sqlite-index';
import type { SearchIndex } from '../../../src/search/ports';
import { Indexer } from '../../../src/services/indexer';
import { makeTask, makeWorkflowRecord } from '../../contracts/fixtures';

// The indexer between committed turns and the search index: batches, coalescing by id, one batch
// at a time however slow the index is, and nothing lost when a write fails.

/** The real SQLite index, with each write held until the test lets it through (or fails it). */
function gatedIndex() {
  const db = new Database(':memory:');
  const real = new SqliteSearchIndex(db);
  const writes: Array<{ kind: 'workflows' | 'tasks'; ids: string[] }> = [];
  const gates: Array<{ open(): void; fail(e: Error): void }> = [];
  const gate = () => new Promise<void>((open, fail) => gates.push({ open, fail }));
  const index: SearchIndex = Object.assign(Object.create(real) as SearchIndex, {
    async indexWorkflows(docs: Parameters<SearchIndex['indexWorkflows']>[0]) {
      await gate();
      writes.push({ kind: 'workflows', ids: docs.map((d) => d.workflowId) });
      return real.indexWorkflows(docs);
    },
    async indexTasks(docs: Parameters<SearchIndex['indexTasks']>[0]) {
      await gate();
      writes.push({ kind: 'tasks', ids: docs.map((d) => d.taskId) });
      return real.indexTasks(docs);
    },
  });
  const next = async (): Promise<{ open(): void; fail(e: Error): void }> => {
    for (const until = Date.now() + 5000; gates.length === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 1));
    const g = gates.shift();
    if (!g) throw new Error('no write is waiting');
    return g;
  };
  const search = (workflowId: string) =>
    real.searchWorkflows({ query: { op: 'cmp', field: 'workflowId', cmp: '=', value: workflowId }, freeText: { kind: 'all' }, sort: [], start: 0, size: 10 });
  const searchTasks = (workflowId: string) =>
    real.searchTasks({ query: { op: 'cmp', field: 'workflowId', cmp: '=', value: workflowId }, freeText: { kind: 'all' }, sort: [], start: 0, size: 10 });
  return { index, writes, next, search, searchTasks, pendingGates: () => gates.length };
}

const log = pino({ level: 'silent' });

test('documents added while a batch is written wait, coalesced by id, for one next batch', async () => {
  const g = gatedIndex();
  const indexer = new Indexer(g.index, log, { delayMs: 60_000 });
  indexer.add(makeWorkflowRecord({ workflowId: 'w1', status: 'RUNNING' }), [makeTask({ taskId: 't1', workflowInstanceId: 'w1' })]);
  const first = indexer.flush();
  const writing = await g.next();
  // While the first batch is held: the same execution changes five times, and a second flush is asked for.
  for (let i = 0; i < 5; i++)
    indexer.add(makeWorkflowRecord({ workflowId: 'w1', status: i === 4 ? 'COMPLETED' : 'RUNNING' }), [
      makeTask({ taskId: 't1', workflowInstanceId: 'w1', status: 'COMPLETED' }),
    ]);
  const second = indexer.flush();
  expect(g.pendingGates()).toBe(0); // no second write runs beside the first
  writing.open();
  (await g.next()).open(); // tasks of the first batch
  await first;
  (await g.next()).open();
  (await g.next()).open();
  await second;
  expect(g.writes).toEqual([
    { kind: 'workflows', ids: ['w1'] },
    { kind: 'tasks', ids: ['t1'] },
    { kind: 'workflows', ids: ['w1'] },
    { kind: 'tasks', ids: ['t1'] },
  ]);
  expect((await g.search('w1')).results[0]).toMatchObject({ workflowId: 'w1', status: 'COMPLETED' });
});

test('settled() waits for the regular flush; with nothing pending it resolves at once', async () => {
  const g = gatedIndex();
  const indexer = new Indexer(g.index, log, { delayMs: 10 });
  await indexer.settled();
  indexer.add(makeWorkflowRecord({ workflowId: 'w2' }), []);
  let settled = false;
  const s = indexer.settled().then(() => (settled = true));
  (await g.next()).open(); // the timer's flush
  await s;
  expect(settled).toBe(true);
  expect((await g.search('w2')).totalHits).toBe(1);
});

test('a failed write rejects its waiters, keeps its documents and writes them on the retry', async () => {
  const g = gatedIndex();
  const indexer = new Indexer(g.index, log, { delayMs: 60_000 });
  indexer.add(makeWorkflowRecord({ workflowId: 'w3', status: 'RUNNING' }), []);
  const failed = indexer.flush();
  (await g.next()).fail(new Error('index down'));
  await expect(failed).rejects.toThrow('index down');
  // A newer state of the same execution, added after the failure, wins over the re-added one.
  indexer.add(makeWorkflowRecord({ workflowId: 'w3', status: 'COMPLETED' }), []);
  const retried = indexer.flush();
  (await g.next()).open();
  await retried;
  expect((await g.search('w3')).results[0]).toMatchObject({ status: 'COMPLETED' });
});

test('a regular flush that fails (index down) leaves no rejection unhandled and writes the documents once the index is back', async () => {
  const g = gatedIndex();
  const unhandled: unknown[] = [];
  const record = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    const indexer = new Indexer(g.index, log, { delayMs: 1 });
    indexer.add(makeWorkflowRecord({ workflowId: 'w9', status: 'RUNNING' }), []);
    (await g.next()).fail(new Error('connect ECONNREFUSED'));
    // The retry after the failure: the index is back.
    (await g.next()).open();
    await indexer.settled();
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
    expect((await g.search('w9')).totalHits).toBe(1);
  } finally {
    process.off('unhandledRejection', record);
  }
});

describe('removing an execution from the index (Indexer.remove)', () => {
  const docs = (workflowId: string) =>
    [makeWorkflowRecord({ workflowId, input: { secret: 's3cr3t' } }), [makeTask({ workflowInstanceId: workflowId, inputData: { secret: 's3cr3t' } })]] as const;
  const gone = async (g: ReturnType<typeof gatedIndex>, workflowId: string) =>
    (await g.search(workflowId)).totalHits === 0 && (await g.searchTasks(workflowId)).totalHits === 0;

  test('documents still queued when the execution is removed are never written', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 60_000 });
    indexer.add(...docs('r1'));
    await indexer.remove('r1');
    const flushed = indexer.flush();
    // Nothing of r1 is left to write: before, this flush wrote the removed record (input included) back.
    expect(g.pendingGates()).toBe(0);
    await flushed;
    expect(g.writes).toEqual([]);
    expect(await gone(g, 'r1')).toBe(true);
  });

  test('a batch being written when the removal comes ends first; the delete follows it', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 60_000 });
    indexer.add(...docs('r2'));
    indexer.add(...docs('keep'));
    const flushed = indexer.flush();
    const workflowsWrite = await g.next(); // the batch holding r2 is in flight
    let removed = false;
    const removal = indexer.remove('r2').then(() => (removed = true));
    await new Promise((r) => setImmediate(r));
    expect(removed).toBe(false); // waits for the batch instead of deleting under it
    workflowsWrite.open();
    (await g.next()).open(); // the batch's tasks
    await flushed;
    await removal;
    expect(await gone(g, 'r2')).toBe(true);
    expect((await g.search('keep')).totalHits).toBe(1);
  });

  test('a batch that fails during the removal does not put the removed documents back for its retry', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 60_000 });
    indexer.add(...docs('r3'));
    const failed = indexer.flush();
    const write = await g.next();
    const removal = indexer.remove('r3');
    write.fail(new Error('index down'));
    await expect(failed).rejects.toThrow('index down');
    await removal;
    const retry = indexer.flush();
    expect(g.pendingGates()).toBe(0);
    await retry;
    expect(await gone(g, 'r3')).toBe(true);
  });

  test('documents of the execution added while it is being removed are dropped; others are kept', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 60_000 });
    indexer.add(...docs('r4'));
    const flushed = indexer.flush();
    const write = await g.next();
    const removal = indexer.remove('r4');
    indexer.add(...docs('r4')); // a late turn of the removed execution
    indexer.add(...docs('other'));
    write.open();
    (await g.next()).open();
    await flushed;
    await removal;
    const next = indexer.flush();
    (await g.next()).open();
    (await g.next()).open();
    await next;
    expect(await gone(g, 'r4')).toBe(true);
    expect((await g.search('other')).totalHits).toBe(1);
  });
});

describe('holding the documents of open tasks and executions (holdMs)', () => {
  test('a task scheduled, claimed and completed within the hold is written once, as completed; ended executions do not wait', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 10, holdMs: 60_000 });
    indexer.add(makeWorkflowRecord({ workflowId: 'h1', updateTime: 1 }), [makeTask({ taskId: 'h1-t', workflowInstanceId: 'h1', updateTime: 1 })]);
    // Another execution ends meanwhile: its batch goes at once and carries nothing of the open one.
    indexer.add(
      makeWorkflowRecord({ workflowId: 'h0', status: 'COMPLETED', updateTime: 1 }),
      [makeTask({ taskId: 'h0-t', workflowInstanceId: 'h0', status: 'COMPLETED', updateTime: 1 })],
      true,
    );
    let settled = indexer.settled();
    (await g.next()).open();
    (await g.next()).open();
    await settled;
    indexer.add(undefined, [makeTask({ taskId: 'h1-t', workflowInstanceId: 'h1', status: 'IN_PROGRESS', updateTime: 2 })]);
    indexer.add(
      makeWorkflowRecord({ workflowId: 'h1', status: 'COMPLETED', updateTime: 3 }),
      [makeTask({ taskId: 'h1-t', workflowInstanceId: 'h1', status: 'COMPLETED', updateTime: 3 })],
      true,
    );
    settled = indexer.settled();
    (await g.next()).open();
    (await g.next()).open();
    await settled;
    expect(g.writes).toEqual([
      { kind: 'workflows', ids: ['h0'] },
      { kind: 'tasks', ids: ['h0-t'] },
      { kind: 'workflows', ids: ['h1'] },
      { kind: 'tasks', ids: ['h1-t'] },
    ]);
    expect((await g.searchTasks('h1')).results[0]).toMatchObject({ taskId: 'h1-t', status: 'COMPLETED' });
    expect((await g.search('h1')).results[0]).toMatchObject({ status: 'COMPLETED' });
  });

  test('an open document is written once its hold has passed, without any other change', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 5, holdMs: 20 });
    indexer.add(makeWorkflowRecord({ workflowId: 'h2' }), []);
    (await g.next()).open();
    await indexer.flush();
    expect(g.writes).toEqual([{ kind: 'workflows', ids: ['h2'] }]);
    expect((await g.search('h2')).totalHits).toBe(1);
  });

  test('flush() (shutdown) writes held documents too', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 60_000, holdMs: 60_000 });
    indexer.add(makeWorkflowRecord({ workflowId: 'h3' }), [makeTask({ taskId: 'h3-t', workflowInstanceId: 'h3' })]);
    const flushed = indexer.flush();
    (await g.next()).open();
    (await g.next()).open();
    await flushed;
    expect((await g.searchTasks('h3')).totalHits).toBe(1);
  });

  test('an older version of a document added after a newer one is not written over it', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 60_000, holdMs: 60_000 });
    indexer.add(undefined, [makeTask({ taskId: 'h4-t', workflowInstanceId: 'h4', status: 'COMPLETED', updateTime: 5 })]);
    indexer.add(undefined, [makeTask({ taskId: 'h4-t', workflowInstanceId: 'h4', status: 'IN_PROGRESS', updateTime: 3 })]);
    const flushed = indexer.flush();
    (await g.next()).open();
    await flushed;
    expect(g.writes).toEqual([{ kind: 'tasks', ids: ['h4-t'] }]);
    expect((await g.searchTasks('h4')).results[0]).toMatchObject({ status: 'COMPLETED' });
  });

  test('a removal after an upsert that is still held: nothing of the execution is written', async () => {
    const g = gatedIndex();
    const indexer = new Indexer(g.index, log, { delayMs: 10, holdMs: 60_000 });
    indexer.add(makeWorkflowRecord({ workflowId: 'h5' }), [makeTask({ taskId: 'h5-t', workflowInstanceId: 'h5' })]);
    await indexer.remove('h5');
    await indexer.flush();
    expect(g.writes).toEqual([]);
    expect((await g.search('h5')).totalHits + (await g.searchTasks('h5')).totalHits).toBe(0);
  });
});
