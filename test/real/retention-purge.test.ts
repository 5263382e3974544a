import { Client } from '@elastic/elasticsearch';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { ArchivedExecutions } from '../../src/retention/archived-executions';
import { Purger } from '../../src/retention/purger';
import { ElasticsearchSearchIndex } from '../../src/search/elasticsearch/elasticsearch-index';
import { deleteTestIndices } from '../support/es-cleanup';
import { openCassandraStores, type CassandraStores } from '../../src/store/cassandra';
import { testConfig } from '../contracts/execution-store.cassandra-server';
import { engineSuite } from '../support/real-engines';
import { populate, suiteRetentionRules, type Group } from '../support/retention-population';
import { missingRetentionEngines, s3Store } from '../support/s3';

// The purge on the distributed profile's engines: executions in Cassandra (own keyspace), documents in
// Elasticsearch (own index prefix), archives in the S3-compatible server; an injected clock.

const node = process.env.ELASTICSEARCH_URL;
const missing = missingRetentionEngines();

const NOW = Date.UTC(2026, 10, 28, 12);
const GROUPS: Array<Group & { due: boolean }> = [
  { name: 'r_default', status: 'COMPLETED', endedDaysAgo: 40, count: 400, due: true },
  { name: 'r_default', status: 'FAILED', endedDaysAgo: 5, count: 100, due: false },
  { name: 'r_default', status: 'RUNNING', endedDaysAgo: 90, count: 50, due: false },
  { name: 'r_long', status: 'COMPLETED', endedDaysAgo: 100, count: 100, due: false },
  { name: 'r_archived', status: 'TERMINATED', endedDaysAgo: 10, count: 100, due: true },
];

engineSuite('Cassandra, Elasticsearch and s3proxy', missing)('retention purge on the real engines', () => {
  let stores: CassandraStores;
  let index: ElasticsearchSearchIndex;
  let admin: Client;
  let keyspace = '';
  const prefix = `baton_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const objects = s3Store();
  beforeAll(async () => {
    const cfg = testConfig();
    keyspace = cfg.keyspace;
    stores = await openCassandraStores(cfg);
    index = new ElasticsearchSearchIndex({ node: node!, indexPrefix: prefix, refresh: false });
    await index.init();
    admin = new Client({ node: node! });
  }, 120_000);
  afterAll(async () => {
    await index?.close();
    if (admin) await deleteTestIndices(admin, prefix);
    await admin?.close();
    await objects.close();
    if (stores) {
      await stores.client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
      await stores.close();
    }
  }, 120_000);

  test('due executions leave Cassandra and Elasticsearch (archived ones for S3), the rest stays', async () => {
    const ids = await populate(stores.executions, index, GROUPS, NOW, prefix);
    const settle = async (): Promise<void> => {
      await index.flushRemovals();
      await admin.indices.refresh({ index: `${prefix}_*` });
    };
    await settle();
    const purger = new Purger({
      store: stores.executions,
      removeFromIndex: (id) => index.removeWorkflow(id),
      search: index,
      retention: stores.retention,
      objects,
      idempotencyKeys: stores.idempotencyKeys,
      rules: suiteRetentionRules,
      now: () => NOW,
      log: pino({ level: 'silent' }),
    });
    let purged = 0;
    for (let pass = 0; pass < 10; pass++) {
      const out = await purger.passOnce(200);
      purged += out.purged;
      await settle(); // the next pass's search sees this one's deletes
      if (out.purged === 0) break;
    }
    expect(purged).toBe(500);
    expect(await stores.retention.unfinishedPasses()).toEqual([]);

    for (const g of GROUPS) {
      const list = ids.get(`${g.name}/${g.status}`)!;
      for (const id of [list[0]!, list.at(-1)!]) expect({ id, stored: (await stores.executions.load(id)) !== undefined }).toEqual({ id, stored: !g.due });
      const hits = await index.searchWorkflows({
        query: {
          op: 'and',
          left: { op: 'cmp', field: 'workflowType', cmp: '=', value: g.name },
          right: { op: 'cmp', field: 'status', cmp: '=', value: g.status },
        },
        freeText: { kind: 'all' },
        sort: [],
        start: 0,
        size: 0,
      });
      expect({ group: `${g.name}/${g.status}`, indexed: hits.totalHits }).toEqual({ group: `${g.name}/${g.status}`, indexed: g.due ? 0 : g.count });
    }
    // Task documents of purged executions are gone too.
    const tasks = await index.searchTasks({
      query: { op: 'cmp', field: 'workflowType', cmp: '=', value: 'r_archived' },
      freeText: { kind: 'all' },
      sort: [],
      start: 0,
      size: 0,
    });
    expect(tasks.totalHits).toBe(0);
    // Archived in the bucket, and read back as GET would.
    const archivedId = ids.get('r_archived/TERMINATED')![0]!;
    const found = await new ArchivedExecutions(stores.retention, objects, stores.executions).find(archivedId, true);
    expect(found).toMatchObject({ workflowId: archivedId, status: 'TERMINATED', archived: true });
    expect(found!.tasks).toHaveLength(2);
    const entry = await stores.retention.archived(archivedId);
    expect(await objects.list(entry!.key.slice(0, entry!.key.lastIndexOf('/') + 1) + prefix, 1000)).toHaveLength(100);
    // The purge's deletes are partition deletes (and one overwritten journal row): reads of the tables it
    // deletes from, of the purged executions and of the journal, scan only a few tombstones each, as
    // Cassandra itself counts them (docs/cassandra.md, the tombstone section).
    for (const id of ids.get('r_default/COMPLETED')!.slice(0, 50)) await stores.executions.load(id);
    for (let i = 0; i < 20; i++) await stores.retention.unfinishedPasses();
    const rs = await stores.client.execute('SELECT table_name, max FROM system_views.tombstones_per_read WHERE keyspace_name = ?', [keyspace], {
      prepare: true,
    });
    const perTable = new Map(rs.rows.map((r) => [r.get('table_name') as string, Number(r.get('max'))]));
    process.stdout.write(
      `retention on Cassandra: most tombstones in one read per table after purging ${purged}: ${JSON.stringify(Object.fromEntries(perTable))}\n`,
    );
    expect(Math.max(perTable.get('executions') ?? 0, perTable.get('retention_state') ?? 0)).toBeLessThanOrEqual(2);
    for (const id of ids.get('r_archived/TERMINATED')!) {
      const e = await stores.retention.archived(id);
      await objects.remove(e!.key);
    }
  }, 600_000);
});
