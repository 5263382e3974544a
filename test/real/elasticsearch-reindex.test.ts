import { Client } from '@elastic/elasticsearch';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { ElasticsearchSearchIndex } from '../../src/search/elasticsearch/elasticsearch-index';
import { deleteTestIndices } from '../support/es-cleanup';
import { parseFreeText, parseQuery, parseSort } from '../../src/search/query';
import { runReindex } from '../../src/tools/reindex';
import { call, eventually, startBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';

/**
 * Executions Baton really ran (embedded, SQLite index), rebuilt into the real Elasticsearch by
 * `npm run reindex` with the distributed profile's configuration: the Elasticsearch adapter must
 * answer the same searches with the same summaries as the SQLite index did.
 */
const node = process.env.ELASTICSEARCH_URL;

engineSuite('Elasticsearch', node ? undefined : 'ELASTICSEARCH_URL is not set')('npm run reindex into a real Elasticsearch', () => {
  const prefix = `baton_reindex_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  // Built in beforeAll: a skipped suite's body still runs, and without a URL the client throws.
  let admin: Client;
  beforeAll(() => {
    admin = new Client({ node: node! });
  });

  afterAll(async () => {
    await deleteTestIndices(admin, prefix);
    await admin.close();
  });

  it('finds what the SQLite index found, summary for summary', async () => {
    const b = await startBaton();
    const name = `es_reindex_${Date.now().toString(36)}`;
    const workflowQuery = `workflowType = '${name}'`;
    let embeddedWorkflows: unknown[];
    let embeddedTasks: unknown[];
    try {
      const def = { name, version: 1, schemaVersion: 2, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] };
      expect((await call(b.url, 'POST', '/api/metadata/workflowdef', def)).status).toBe(200);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await call(b.url, 'POST', '/api/workflow', { name, correlationId: `c-${i}`, input: { n: i, who: 'alice' } })).text);
      for (const id of ids.slice(0, 2)) expect((await call(b.url, 'POST', `/api/queue/update/${id}/h/COMPLETED`, { ok: id })).status).toBe(200);
      const search = (path: string, query: string) => call(b.url, 'GET', `${path}?sort=correlationId:ASC&size=100&query=${encodeURIComponent(query)}`);
      await eventually(async () => (await search('/api/workflow/search', `${workflowQuery} AND status = 'COMPLETED'`)).body.totalHits === 2);
      embeddedWorkflows = (await search('/api/workflow/search', workflowQuery)).body.results;
      embeddedTasks = (await search('/api/tasks/search', `workflowType = '${name}'`)).body.results;
    } finally {
      await b.stop();
    }
    expect(embeddedWorkflows).toHaveLength(4);
    expect(embeddedTasks).toHaveLength(4);

    const cfg = loadConfig({
      BATON_PROFILE: 'distributed',
      BATON_STORE: 'sqlite',
      BATON_DATA_DIR: b.dataDir,
      BATON_INDEX: 'elasticsearch',
      ELASTICSEARCH_URL: node!,
      ELASTICSEARCH_INDEX_PREFIX: prefix,
      LOG_LEVEL: 'silent',
    });
    expect(await runReindex(cfg, pino({ level: 'silent' }))).toEqual({ workflows: 4, tasks: 4 });

    await admin.indices.refresh({ index: `${prefix}_*` });
    const es = new ElasticsearchSearchIndex({ node: node!, indexPrefix: prefix });
    try {
      const request = (target: 'workflow' | 'task', query: string) => ({
        query: parseQuery(query, target),
        freeText: parseFreeText('*', target),
        sort: parseSort('correlationId:ASC', target),
        start: 0,
        size: 100,
      });
      expect((await es.searchWorkflows(request('workflow', workflowQuery))).results).toEqual(embeddedWorkflows);
      expect((await es.searchTasks(request('task', `workflowType = '${name}'`))).results).toEqual(embeddedTasks);
      const words = await es.searchWorkflows({ ...request('workflow', workflowQuery), freeText: parseFreeText('alice', 'workflow') });
      expect(words.totalHits).toBe(4);
    } finally {
      await es.close();
    }
  });
});
