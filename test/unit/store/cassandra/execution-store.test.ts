import { type Client, errors, types } from 'cassandra-driver';
import { CassandraExecutionStore } from '../../../../src/store/cassandra/execution-store';
import { encodeKeys, indexKeysOf, DEFAULT_INDEX_LAYOUT } from '../../../../src/store/cassandra/rows';
import { executionStatements } from '../../../../src/store/cassandra/statements';
import { CommitOutcomeUnknown, PayloadTooLargeError, StaleWriteError, type ExecutionCommit } from '../../../../src/store/ports';
import { toErrorBody } from '../../../../src/api/errors';
import { makeTask, makeWorkflowRecord } from '../../../contracts/fixtures';

// A driver double that records every request and answers from per-statement scripts: enough to check
// the order of writes, the options of each request and how outcomes of the conditional batch are read.
type Call = { kind: 'execute' | 'batch'; query: string | string[]; params: unknown; options: Record<string, unknown> };
type Reply = { rows?: Record<string, unknown>[]; applied?: boolean } | Error;
/** A reply, or a function of the calls so far that gives one. */
type Answer = Reply | ((calls: Call[]) => Reply);

class RecordingClient {
  calls: Call[] = [];
  answers = new Map<string, Answer[]>();

  answer(query: string, ...a: Answer[]): void {
    this.answers.set(query, [...(this.answers.get(query) ?? []), ...a]);
  }

  private reply(query: string): unknown {
    const next = this.answers.get(query)?.shift() ?? {};
    const a = typeof next === 'function' ? next(this.calls) : next;
    if (a instanceof Error) throw a;
    const rows = (a.rows ?? []).map((r) => ({ get: (c: string) => r[c] }));
    return { rows, first: () => rows[0] ?? null, pageState: null, wasApplied: () => a.applied ?? true };
  }

  async execute(query: string, params: unknown, options: Record<string, unknown>) {
    this.calls.push({ kind: 'execute', query, params, options });
    return this.reply(query);
  }

  async batch(queries: { query: string; params: unknown[] }[], options: Record<string, unknown>) {
    this.calls.push({ kind: 'batch', query: queries.map((q) => q.query), params: queries.map((q) => q.params), options });
    return this.reply(queries[0]!.query);
  }
}

/** What the driver raises when a connection closes under a request (its DriverError, abstract in its types). */
class SocketClosed extends errors.DriverError {}

const q = executionStatements('ks');
const NOW = Date.UTC(2025, 5, 1, 12, 0, 30);
const nameOf = new Map(Object.entries(q).map(([k, v]) => [v, k]));
const names = (calls: Call[]): string[] =>
  calls.map((c) => (c.kind === 'batch' ? `batch[${(c.query as string[]).map((s) => nameOf.get(s)).join(',')}]` : nameOf.get(c.query as string)!));

function setup() {
  const client = new RecordingClient();
  const indexErrors: unknown[] = [];
  const store = new CassandraExecutionStore(client as unknown as Client, { keyspace: 'ks', onIndexError: (e) => indexErrors.push(e), now: () => NOW });
  const workflow = makeWorkflowRecord({ workflowId: 'wf-1', correlationId: 'c' });
  const task = makeTask({ taskId: 't-1', workflowInstanceId: 'wf-1' });
  const commit = (over: Partial<ExecutionCommit> = {}): ExecutionCommit => ({
    workflow,
    upsertTasks: [task],
    deleteTaskIds: [],
    outbox: [],
    expectedRev: 0,
    ...over,
  });
  return { client, store, workflow, task, commit, indexErrors };
}

describe('CassandraExecutionStore commit', () => {
  it('writes lookups and the recovery entry, then the fenced batch, then the other indexes and indexed_keys', async () => {
    const { client, store, commit } = setup();
    await store.commit(commit());
    expect(names(client.calls)).toEqual([
      'upsertTaskLookup',
      'insertOpenEntry',
      'insertOpenGen',
      'insertOpenPage',
      'batch[insertExecution,upsertTask]',
      'insertOpenEntry',
      'insertOpenGen',
      'insertOpenPage',
      'upsertCorrelation',
      'setIndexedKeys',
    ]);
    const gen = Date.UTC(2025, 5, 1, 12, 0, 0);
    expect(client.calls[1]!.params).toEqual(['recovery', gen, expect.any(Number), 'wf-1', null, gen]);
    expect(client.calls[5]!.params).toEqual(['running:fixture_wf', gen, 0, 'wf-1', 1, gen]);
  });

  it('without a correlation id a new execution costs one request less: its entries precede the batch, which records them as indexed', async () => {
    const { client, store, commit, workflow } = setup();
    const plain = { ...workflow, correlationId: undefined };
    await store.commit(commit({ workflow: plain }));
    expect(names(client.calls)).toEqual([
      'upsertTaskLookup',
      'insertOpenEntry',
      'insertOpenGen',
      'insertOpenPage',
      'insertOpenEntry',
      'insertOpenGen',
      'insertOpenPage',
      'batch[insertExecutionIndexed,upsertTask]',
    ]);
    const batch = client.calls[7]!.params as unknown[][];
    expect(batch[0]![5]).toBe(batch[0]![6]); // keys and indexed_keys alike
    // The process knows what is indexed: the completion deletes the running and recovery entries, then records the keys.
    client.calls = [];
    await store.commit(commit({ expectedRev: 1, upsertTasks: [], workflow: { ...plain, status: 'COMPLETED' } }));
    expect(names(client.calls)).toEqual(['batch[updateExecution]', 'deleteOpenEntry', 'deleteOpenEntry', 'setIndexedKeys']);
  });

  it('writes the registry rows of a generation once per process', async () => {
    const { client, store, commit, workflow } = setup();
    await store.commit(commit());
    client.calls = [];
    await store.commit(commit({ workflow: { ...workflow, workflowId: 'wf-2' }, upsertTasks: [] }));
    expect(names(client.calls)).toEqual(['insertOpenEntry', 'batch[insertExecution]', 'insertOpenEntry', 'upsertCorrelation', 'setIndexedKeys']);
  });

  it('sends the batch as a logged, non-idempotent LWT at LOCAL_QUORUM / LOCAL_SERIAL, and everything else prepared and idempotent', async () => {
    const { client, store, commit } = setup();
    await store.commit(commit());
    const batch = client.calls.find((c) => c.kind === 'batch')!;
    expect(batch.options).toEqual({
      prepare: true,
      logged: true,
      consistency: types.consistencies.localQuorum,
      serialConsistency: types.consistencies.localSerial,
      isIdempotent: false,
    });
    const params = batch.params as unknown[][];
    expect(params[0]![0]).toBe('wf-1');
    expect(params[0]![1]).toBe(1);
    for (const c of client.calls.filter((c) => c.kind === 'execute'))
      expect(c.options).toMatchObject({ prepare: true, isIdempotent: true, consistency: types.consistencies.localQuorum });
  });

  it('fences later turns with IF rev = expectedRev and needs no read when this process knows the rev', async () => {
    const { client, store, commit, workflow } = setup();
    await store.commit(commit());
    client.calls = [];
    await store.commit(commit({ expectedRev: 1, upsertTasks: [], workflow: { ...workflow, variables: { a: 1 } } }));
    expect(names(client.calls)).toEqual(['batch[updateExecution]']);
    const params = (client.calls[0]!.params as unknown[][])[0]!;
    expect(params.slice(-2)).toEqual(['wf-1', 1]);
    expect(params[0]).toBe(2);
  });

  it('throws StaleWriteError and writes no index entry when the batch is not applied', async () => {
    const { client, store, commit } = setup();
    client.answer(q.insertExecution, { applied: false });
    await expect(store.commit(commit())).rejects.toBeInstanceOf(StaleWriteError);
    expect(names(client.calls).slice(4)).toEqual(['batch[insertExecution,upsertTask]']);
  });

  it('reads the stored head once when it does not know the rev, and refuses a mismatch without writing', async () => {
    const { client, store, commit } = setup();
    client.answer(q.selectHead, { rows: [{ rev: types.Long.fromNumber(3), indexed_keys: null }] });
    await expect(store.commit(commit({ expectedRev: 2 }))).rejects.toBeInstanceOf(StaleWriteError);
    expect(names(client.calls)).toEqual(['selectHead']);
  });

  it('diffs against the stored indexed_keys on a cache miss, so an unchanged turn writes no index entry', async () => {
    const { client, store, commit, workflow, task } = setup();
    const keys = encodeKeys(indexKeysOf(workflow, [], DEFAULT_INDEX_LAYOUT, undefined, NOW - 3 * 86_400_000));
    client.answer(q.selectHead, { rows: [{ rev: types.Long.fromNumber(4), indexed_keys: keys }] });
    await store.commit(commit({ expectedRev: 4 }));
    expect(names(client.calls)).toEqual(['selectHead', 'upsertTaskLookup', 'batch[updateExecution,upsertTask]']);
    expect((client.calls[1]!.params as unknown[])[0]).toBe(task.taskId);
  });

  it('settles a timed-out batch by a LOCAL_SERIAL read of commit_id: ours ⇒ applied', async () => {
    const { client, store, commit } = setup();
    client.answer(q.insertExecution, new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS timeout'));
    // The serial read returns the commit id the batch carried.
    client.answer(q.selectHead, (calls) => {
      const batch = calls.find((c) => c.kind === 'batch')!;
      return { rows: [{ rev: types.Long.fromNumber(1), commit_id: (batch.params as unknown[][])[0]![2] }] };
    });
    await expect(store.commit(commit())).resolves.toBeUndefined();
    const serial = client.calls.find((c) => c.query === q.selectHead)!;
    expect(serial.options.consistency).toBe(types.consistencies.localSerial);
  });

  it('settles a timed-out batch: rev unchanged ⇒ rethrows the timeout; another commit ⇒ StaleWriteError', async () => {
    const timeout = () => new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS timeout');
    const a = setup();
    a.client.answer(q.insertExecution, timeout());
    a.client.answer(q.selectHead, { rows: [] });
    await expect(a.store.commit(a.commit())).rejects.toBeInstanceOf(errors.ResponseError);

    const b = setup();
    b.client.answer(q.insertExecution, timeout());
    b.client.answer(q.selectHead, { rows: [{ rev: types.Long.fromNumber(1), commit_id: types.Uuid.random() }] });
    await expect(b.store.commit(b.commit())).rejects.toBeInstanceOf(StaleWriteError);
  });

  it('settles a batch whose connection closed after it was written (ours ⇒ applied); one never written fails as is', async () => {
    const closed = (written: boolean) =>
      Object.assign(new SocketClosed('Socket was closed'), { isSocketError: true, ...(written ? {} : { requestNotWritten: true }) });
    const a = setup();
    a.client.answer(q.insertExecution, closed(true));
    a.client.answer(q.selectHead, (calls) => {
      const batch = calls.find((c) => c.kind === 'batch')!;
      return { rows: [{ rev: types.Long.fromNumber(1), commit_id: (batch.params as unknown[][])[0]![2] }] };
    });
    await expect(a.store.commit(a.commit())).resolves.toBeUndefined();

    const b = setup();
    b.client.answer(q.insertExecution, closed(false));
    await expect(b.store.commit(b.commit())).rejects.toThrow('Socket was closed');
    expect(b.client.calls.filter((c) => c.query === q.selectHead)).toEqual([]);
  });

  it('a timed-out batch whose settling read fails too is an unknown outcome (500, not retryable), never a retryable error', async () => {
    const { client, store, commit } = setup();
    client.answer(q.insertExecution, new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS timeout'));
    client.answer(q.selectHead, new errors.ResponseError(types.responseErrorCodes.unavailableException, 'Cannot achieve consistency level LOCAL_SERIAL'));
    const err = await store.commit(commit()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommitOutcomeUnknown);
    expect(toErrorBody(err)).toMatchObject({ status: 500, retryable: false, message: expect.stringMatching(/^Outcome unknown: .*CAS timeout.*LOCAL_SERIAL/) });
  });

  it('refuses an oversized payload before sending anything', async () => {
    const { client, store, commit, task } = setup();
    const big = { ...task, outputData: { s: 'x'.repeat(3 * 1024 * 1024) } };
    await expect(store.commit(commit({ upsertTasks: [big] }))).rejects.toBeInstanceOf(PayloadTooLargeError);
    expect(client.calls).toEqual([]);
  });

  it('reports an index write that fails after the batch instead of failing the durable turn', async () => {
    const { client, store, commit, indexErrors } = setup();
    client.answer(q.insertOpenEntry, {}, new Error('node down'));
    await expect(store.commit(commit())).resolves.toBeUndefined();
    expect(indexErrors).toHaveLength(1);
    expect(names(client.calls)).not.toContain('setIndexedKeys');
  });
});

describe('CassandraExecutionStore task logs', () => {
  it('counts each task’s lines first and writes only those that fit, each cut to the longest line kept', async () => {
    const client = new RecordingClient();
    const store = new CassandraExecutionStore(client as unknown as Client, {
      keyspace: 'ks',
      payloadLimits: { taskPayloadBytes: 1024, workflowPayloadBytes: 1024, taskLogs: { lineBytes: 300, lines: 5 } },
    });
    client.answer(q.countTaskLogs, { rows: [{ n: types.Long.fromNumber(3) }] }, { rows: [{ n: types.Long.fromNumber(0) }] });
    const stored = await store.appendTaskLogs([
      { taskId: 'full-ish', log: 'a', createdTime: 1 },
      { taskId: 'full-ish', log: 'x'.repeat(400), createdTime: 2 },
      { taskId: 'full-ish', log: 'c', createdTime: 3 },
      { taskId: 'empty', log: 'd', createdTime: 1 },
    ]);
    expect(stored).toBe(3);
    expect(names(client.calls)).toEqual(['countTaskLogs', 'countTaskLogs', 'batch[insertTaskLog,insertTaskLog]', 'batch[insertTaskLog]']);
    const [fullIsh, empty] = client.calls.filter((c) => c.kind === 'batch').map((c) => (c.params as unknown[][]).map((p) => p[3] as string));
    expect(fullIsh![0]).toBe('a');
    expect(Buffer.byteLength(fullIsh![1]!, 'utf8')).toBeLessThanOrEqual(300);
    expect(empty).toEqual(['d']);
  });

  it('a task at its limit gets no write at all; reads ask for at most the limit', async () => {
    const { client, store } = setup();
    client.answer(q.countTaskLogs, { rows: [{ n: types.Long.fromNumber(store.taskLogLimits.lines) }] });
    expect(await store.appendTaskLogs([{ taskId: 't', log: 'one more', createdTime: 1 }])).toBe(0);
    expect(names(client.calls)).toEqual(['countTaskLogs']);
    await store.taskLogs('t');
    expect(client.calls[1]).toMatchObject({ query: q.selectTaskLogs, params: ['t', store.taskLogLimits.lines] });
  });
});
