import { Client } from '@elastic/elasticsearch';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Purger } from '../../src/retention/purger';
import { ElasticsearchSearchIndex } from '../../src/search/elasticsearch/elasticsearch-index';
import { openCassandraStores, type CassandraStores } from '../../src/store/cassandra';
import type { ExecutionStore } from '../../src/store/ports';
import { testConfig } from '../contracts/execution-store.cassandra-server';
import { deleteTestIndices } from '../support/es-cleanup';
import { engineSuite } from '../support/real-engines';
import { populate, suiteRetentionRules, type Group } from '../support/retention-population';
import { missingRetentionEngines, s3Store } from '../support/s3';

// Retention by whole period indices on the distributed profile's engines: executions in Cassandra (own
// keyspace), their documents in Elasticsearch's monthly indices (own prefix), archives in s3proxy; an injected clock.

const node = process.env.ELASTICSEARCH_URL;
const missing = missingRetentionEngines();

const NOW = Date.UTC(2026, 10, 28, 12);
type Kind = 'dropped' | 'oneByOne' | 'kept';
const GROUPS: Array<Group & { kind: Kind }> = [
  // August: every execution due (archived ones too): the period's indices are dropped whole.
  { name: 'r_default', status: 'COMPLETED', createdAt: Date.UTC(2026, 7, 10), endedDaysAgo: 100, count: 150, kind: 'dropped' },
  { name: 'r_archived', status: 'TERMINATED', createdAt: Date.UTC(2026, 7, 12), endedDaysAgo: 100, count: 50, kind: 'dropped' },
  // September: a year-long policy keeps some, so the due ones leave one by one and the indices stay.
  { name: 'r_default', status: 'COMPLETED', createdAt: Date.UTC(2026, 8, 5), endedDaysAgo: 80, count: 50, kind: 'oneByOne' },
  { name: 'r_long', status: 'COMPLETED', createdAt: Date.UTC(2026, 8, 6), endedDaysAgo: 80, count: 20, kind: 'kept' },
  // November: young, nothing due.
  { name: 'r_default', status: 'FAILED', createdAt: Date.UTC(2026, 10, 20), endedDaysAgo: 5, count: 30, kind: 'kept' },
];

engineSuite('Cassandra, Elasticsearch and s3proxy', missing)('retention by whole period indices on the real engines', () => {
  let stores: CassandraStores;
  let index: ElasticsearchSearchIndex;
  let admin: Client;
  let keyspace = '';
  const prefix = `baton_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const objects = s3Store();
  const archivedKeys: string[] = [];
  beforeAll(async () => {
    const cfg = testConfig();
    keyspace = cfg.keyspace;
    stores = await openCassandraStores(cfg);
    index = new ElasticsearchSearchIndex({ node: node!, indexPrefix: prefix, refresh: false, period: 'month' });
    await index.init();
    admin = new Client({ node: node! });
  }, 120_000);
  afterAll(async () => {
    await index?.close();
    if (admin) await deleteTestIndices(admin, prefix);
    await admin?.close();
    for (const key of archivedKeys) await objects.remove(key);
    await objects.close();
    if (stores) {
      await stores.client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
      await stores.close();
    }
  }, 120_000);

  test('an old period is dropped whole after its executions left the store (archived as asked), a pass killed in it resumes from its cursor, the rest stays', async () => {
    const ids = await populate(stores.executions, index, GROUPS, NOW);
    // populate lists the ids per name and status, groups in order.
    const offsets = new Map<string, number>();
    const groupIds = GROUPS.map((g) => {
      const key = `${g.name}/${g.status}`;
      const from = offsets.get(key) ?? 0;
      offsets.set(key, from + g.count);
      return ids.get(key)!.slice(from, from + g.count);
    });
    const idsOf = (kind: Kind): string[] => GROUPS.flatMap((g, i) => (g.kind === kind ? groupIds[i]! : []));
    const indices = async (): Promise<string[]> =>
      ((await admin.cat.indices({ index: `${prefix}_*`, format: 'json', h: 'index' })) as Array<{ index: string }>).map((r) => r.index).sort();
    const settle = async (): Promise<void> => {
      await index.flushRemovals();
      await admin.indices.refresh({ index: `${prefix}_*` });
    };
    await settle();
    expect(await indices()).toEqual(
      ['task_2026.08', 'task_2026.09', 'task_2026.11', 'task_v1', 'workflow_2026.08', 'workflow_2026.09', 'workflow_2026.11', 'workflow_v1'].map(
        (s) => `${prefix}_${s}`,
      ),
    );

    const loads: string[] = [];
    const perDocument: string[] = [];
    const kill = new AbortController();
    let removed = 0;
    const purger = (): Purger => {
      const store: Pick<ExecutionStore, 'load' | 'remove'> = {
        load: (id) => (loads.push(id), stores.executions.load(id)),
        remove: async (id) => {
          await stores.executions.remove(id);
          if (++removed === 70) kill.abort();
        },
      };
      return new Purger({
        store,
        removeFromIndex: (id) => (perDocument.push(id), index.removeWorkflow(id)),
        search: index,
        periods: index.periodIndices(),
        retention: stores.retention,
        objects,
        idempotencyKeys: stores.idempotencyKeys,
        rules: suiteRetentionRules,
        now: () => NOW,
        log: pino({ level: 'silent' }),
      });
    };

    // Killed inside the August walk: its cursor is in Cassandra, the period's documents are all still there.
    const first = await purger().passOnce(1000, kill.signal);
    expect(first.droppedPeriods).toBeUndefined();
    const walk = await stores.retention.periodWalk('2026.08');
    expect(walk).toMatchObject({ mode: 'drop', walked: 80 });
    const dropped = idsOf('dropped').sort();
    expect(walk!.after).toBe(dropped[79]);
    expect(dropped.slice(0, 80).filter((id) => loads.includes(id))).toEqual(dropped.slice(0, 80));
    expect((await admin.count({ index: `${prefix}_workflow_2026.08` })).count).toBe(200);

    // A new pass (a restarted process) resumes after the cursor and drops the period.
    let purged = first.purged;
    for (let pass = 0; pass < 5; pass++) {
      const out = await purger().passOnce(1000);
      purged += out.purged;
      await settle();
      if (out.purged === 0) break;
    }
    expect(purged).toBe(250);
    // Every execution of August loaded exactly once: the resumed pass neither read again nor skipped.
    expect(loads.filter((id) => dropped.includes(id)).sort()).toEqual(dropped);
    expect(perDocument.filter((id) => dropped.includes(id))).toEqual([]);
    expect(await stores.retention.periodWalk('2026.08')).toBeUndefined();

    expect(await indices()).toEqual(
      ['task_2026.09', 'task_2026.11', 'task_v1', 'workflow_2026.09', 'workflow_2026.11', 'workflow_v1'].map((s) => `${prefix}_${s}`),
    );
    for (const kind of ['dropped', 'oneByOne', 'kept'] as const) {
      const list = idsOf(kind);
      const stored = (await Promise.all(list.map((id) => stores.executions.load(id)))).filter((s) => s !== undefined).length;
      expect({ kind, stored }).toEqual({ kind, stored: kind === 'kept' ? list.length : 0 });
    }
    expect(perDocument.sort()).toEqual(idsOf('oneByOne').sort());
    const indexed = await index.searchWorkflows({
      query: { op: 'in', field: 'workflowType', values: ['r_default', 'r_long', 'r_archived'] },
      freeText: { kind: 'all' },
      sort: [],
      start: 0,
      size: 1000,
    });
    expect(indexed.results.map((r) => r.workflowId).sort()).toEqual(idsOf('kept').sort());
    const tasks = await index.searchTasks({
      query: { op: 'in', field: 'workflowType', values: ['r_default', 'r_long', 'r_archived'] },
      freeText: { kind: 'all' },
      sort: [],
      start: 0,
      size: 0,
    });
    expect(tasks.totalHits).toBe(idsOf('kept').length * 2);

    // The archived ones are in the bucket, with their tasks.
    for (const id of ids.get('r_archived/TERMINATED')!) {
      const entry = await stores.retention.archived(id);
      expect({ id, archived: entry?.status }).toEqual({ id, archived: 'TERMINATED' });
      archivedKeys.push(entry!.key);
    }
    const body = JSON.parse((await objects.get(archivedKeys[0]!))!.toString()) as { workflow: { tasks: unknown[] } };
    expect(body.workflow.tasks).toHaveLength(2);
  }, 600_000);
});
