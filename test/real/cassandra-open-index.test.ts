import { randomUUID } from 'node:crypto';
import { types } from 'cassandra-driver';
import type { WorkflowRecord } from '../../src/model/execution';
import { decodeKeys } from '../../src/store/cassandra/rows';
import { describeCassandra, testConfig } from '../contracts/execution-store.cassandra-server';
import { makeCommit, makeTask, makeWorkflowRecord } from '../contracts/fixtures';
import { SimulatedClock, storeOnClock } from './cassandra-simulated-time';

// How the open-execution indexes (src/store/cassandra/generations.ts) carry long-running executions
// from sealed generations, verify what they carried, and drop what they leave, on a real Cassandra.

const MIN = 60_000;
const DAY = 86_400_000;

describeCassandra('cassandra open-execution indexes over time', () => {
  const cfg = testConfig();
  // Never behind real time: remove() deletes with the client's clock what lightweight transactions wrote with the server's.
  const clock = new SimulatedClock(Date.now());
  let env: Awaited<ReturnType<typeof storeOnClock>>;
  beforeAll(async () => {
    env = await storeOnClock(cfg, clock);
  }, 120_000);
  afterAll(() => env?.close());

  const open = (over: Partial<WorkflowRecord> = {}): WorkflowRecord =>
    makeWorkflowRecord({ workflowId: randomUUID(), workflowName: `wf_${randomUUID().slice(0, 8)}`, createTime: clock.nowMs, ...over });
  const recovering = async () => {
    const ids = new Set<string>();
    for await (const id of env.store.idsNeedingRecovery()) ids.add(id);
    return ids;
  };
  const entriesOf = async (index: string, gen: number) =>
    (
      await env.client.execute(
        `SELECT workflow_id FROM ${cfg.keyspace}.open_entries WHERE index_name = ? AND gen = ? AND shard = 0`,
        [index, types.Long.fromNumber(gen)],
        {
          prepare: true,
        },
      )
    ).rows.map((r) => r.get('workflow_id') as string);
  const floorOf = async (index: string) =>
    Number(
      (await env.client.execute(`SELECT floor FROM ${cfg.keyspace}.open_pages WHERE index_name = ? LIMIT 1`, [index], { prepare: true }))
        .first()
        ?.get('floor') ?? 0,
    );
  const keysOf = async (id: string) =>
    decodeKeys(
      (await env.client.execute(`SELECT keys FROM ${cfg.keyspace}.executions WHERE workflow_id = ? LIMIT 1`, [id], { prepare: true }))
        .first()
        .get('keys') as string,
    )!;

  it('carries a long-running execution out of its sealed generation, drops the generation and moves the floor', async () => {
    const w = open();
    await env.store.commit(makeCommit(w, 0));
    const gen = (await keysOf(w.workflowId)).runningGen;
    expect(await entriesOf(`running:${w.workflowName}`, gen)).toEqual([w.workflowId]);

    clock.nowMs += 10 * MIN;
    expect(await env.store.runningWorkflowIds(w.workflowName)).toEqual([w.workflowId]);
    expect(await entriesOf(`running:${w.workflowName}`, gen)).toEqual([]);
    expect(await floorOf(`running:${w.workflowName}`)).toBeGreaterThan(gen);
    const today = Math.floor(clock.nowMs / DAY) * DAY;
    expect(await entriesOf(`running-carried:${w.workflowName}`, today)).toEqual([w.workflowId]);

    // Days later the carried entry has moved on with the days, and still stands.
    clock.nowMs += 3 * DAY;
    expect(await env.store.runningWorkflowIds(w.workflowName)).toEqual([w.workflowId]);
    expect(await entriesOf(`running-carried:${w.workflowName}`, today)).toEqual([]);
    expect(await entriesOf(`running-carried:${w.workflowName}`, Math.floor(clock.nowMs / DAY) * DAY)).toEqual([w.workflowId]);
  });

  it('the maintenance pass seals past generations of the recovery index and of the names this process wrote, without a reader', async () => {
    const w = open();
    const ended = open({ workflowName: w.workflowName });
    await env.store.commit(makeCommit(w, 0));
    await env.store.commit(makeCommit(ended, 0));
    await env.store.commit(makeCommit({ ...ended, status: 'COMPLETED' }, 1));
    const gen = (await keysOf(w.workflowId)).runningGen;
    clock.nowMs += 10 * MIN;
    await env.store.sealIndexes();
    for (const index of [`running:${w.workflowName}`, 'recovery']) expect(await floorOf(index)).toBeGreaterThan(gen);
    expect(await entriesOf(`running:${w.workflowName}`, gen)).toEqual([]);
    expect(await entriesOf(`running-carried:${w.workflowName}`, Math.floor(clock.nowMs / DAY) * DAY)).toEqual([w.workflowId]);
    expect(await env.store.runningWorkflowIds(w.workflowName)).toEqual([w.workflowId]);
  });

  it('answers for a carried execution as it is now: its current version, and not once it ended', async () => {
    const w = open({ workflowVersion: 1 });
    await env.store.commit(makeCommit(w, 0));
    clock.nowMs += 10 * MIN;
    expect(await env.store.runningWorkflowIds(w.workflowName, 1)).toEqual([w.workflowId]);

    // Restarted on version 2: a new entry; the carried copy of version 1 no longer stands.
    await env.store.commit(makeCommit({ ...w, workflowVersion: 2 }, 1));
    expect(await env.store.runningWorkflowIds(w.workflowName, 1)).toEqual([]);
    expect(await env.store.runningWorkflowIds(w.workflowName, 2)).toEqual([w.workflowId]);

    clock.nowMs += DAY;
    expect(await env.store.runningWorkflowIds(w.workflowName, 2)).toEqual([w.workflowId]);
    await env.store.commit(makeCommit({ ...w, workflowVersion: 2, status: 'TERMINATED' }, 2));
    expect(await env.store.runningWorkflowIds(w.workflowName)).toEqual([]);
    // The stale carried entry was deleted by the read that found it.
    expect(await entriesOf(`running-carried:${w.workflowName}`, Math.floor(clock.nowMs / DAY) * DAY)).toEqual([]);
  });

  it('keeps a carried execution in the recovery index while it owes effects, and drops a removed one', async () => {
    const owing = open();
    const removed = open();
    const task = makeTask({ taskId: randomUUID(), workflowInstanceId: owing.workflowId });
    await env.store.commit(makeCommit(owing, 0, { upsertTasks: [task] }));
    await env.store.commit(makeCommit(removed, 0));
    clock.nowMs += 30 * MIN;
    let ids = await recovering();
    expect(ids.has(owing.workflowId) && ids.has(removed.workflowId)).toBe(true);

    const outbox = [{ kind: 'index' as const, workflowId: owing.workflowId, taskIds: [] }];
    await env.store.commit(makeCommit({ ...owing, status: 'COMPLETED' }, 1, { outbox }));
    await env.store.remove(removed.workflowId);
    clock.nowMs += 2 * DAY;
    ids = await recovering();
    expect(ids.has(owing.workflowId)).toBe(true);
    expect(ids.has(removed.workflowId)).toBe(false);

    await env.store.commit(makeCommit({ ...owing, status: 'COMPLETED' }, 2));
    expect((await recovering()).has(owing.workflowId)).toBe(false);
  });

  it('an index write that is repaired after its generation was sealed lands in the carried index', async () => {
    const w = open();
    await env.store.commit(makeCommit(w, 0));
    const keys = await keysOf(w.workflowId);
    // As if the process died right after the batch: no running entry, indexed_keys behind keys.
    await env.client.execute(
      `DELETE FROM ${cfg.keyspace}.open_entries WHERE index_name = ? AND gen = ? AND shard = 0 AND workflow_id = ?`,
      [`running:${w.workflowName}`, types.Long.fromNumber(keys.runningGen), w.workflowId],
      { prepare: true },
    );
    await env.client.execute(`UPDATE ${cfg.keyspace}.executions SET indexed_keys = null WHERE workflow_id = ?`, [w.workflowId], { prepare: true });
    clock.nowMs += 10 * MIN;
    expect(await env.store.runningWorkflowIds(w.workflowName)).toEqual([]);

    // Another replica activates the execution: its load finishes the index writes.
    await env.open().load(w.workflowId);
    expect(await env.store.runningWorkflowIds(w.workflowName)).toEqual([w.workflowId]);
    expect(await entriesOf(`running-carried:${w.workflowName}`, Math.floor(clock.nowMs / DAY) * DAY)).toEqual([w.workflowId]);
  });
});
