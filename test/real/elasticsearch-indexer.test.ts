import { Client } from '@elastic/elasticsearch';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ElasticsearchSearchIndex, type ElasticsearchSearchIndexOptions } from '../../src/search/elasticsearch/elasticsearch-index';
import { aliasName, versionedIndexName } from '../../src/search/elasticsearch/es-mappings';
import { deleteTestIndices } from '../support/es-cleanup';
import { parseFreeText, parseQuery } from '../../src/search/query';
import type { SearchTarget } from '../../src/search/search-fields';
import { Indexer } from '../../src/services/indexer';
import { makeTask, makeWorkflowRecord } from '../contracts/fixtures';
import { engineSuite } from '../support/real-engines';

/**
 * The Elasticsearch adapter and the indexer against the real server `npm run services` starts: the
 * request caps, per-item bulk results, removals without forced refreshes, and the mappings, each
 * observed on the wire through the official client's diagnostic events.
 */
const node = process.env.ELASTICSEARCH_URL;

interface Sent {
  method: string;
  path: string;
  querystring: string;
  bodyBytes: number;
  /** Statuses of the bulk items in the answer. */
  itemStatuses: number[];
}

/** An official client that records every request it sends and the item statuses of bulk answers. */
function recordingClient(): { client: Client; sent: Sent[] } {
  const client = new Client({ node: node! });
  const sent: Sent[] = [];
  client.diagnostic.on('response', (_err, meta) => {
    if (!meta) return;
    const p = meta.meta.request.params;
    const body = meta.body as { items?: Array<Record<string, { status: number }>> } | undefined;
    sent.push({
      method: p.method,
      path: p.path,
      querystring: typeof p.querystring === 'string' ? p.querystring : JSON.stringify(p.querystring ?? ''),
      bodyBytes: typeof p.body === 'string' ? Buffer.byteLength(p.body) : 0,
      itemStatuses: (body?.items ?? []).map((item) => Object.values(item)[0]!.status),
    });
  });
  return { client, sent };
}

function recordingLog() {
  const lines: Array<Record<string, unknown>> = [];
  return { log: pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) }), lines };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<{ value: T; afterMs: number }> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > ms) return { value, afterMs: Date.now() - started };
    await sleep(100);
  }
}

engineSuite('Elasticsearch', node ? undefined : 'ELASTICSEARCH_URL is not set')('Elasticsearch adapter on a real server', () => {
  // Built in beforeAll: a skipped suite's body still runs, and without a URL the client throws.
  let admin: Client;
  beforeAll(() => {
    admin = new Client({ node: node! });
  });
  const opened: Array<{ prefix: string; index: ElasticsearchSearchIndex; client: Client }> = [];

  /** A fresh pair of indices under a prefix of its own, written through a recording client. */
  async function freshIndex(options: Partial<ElasticsearchSearchIndexOptions> = {}) {
    const prefix = `baton_real_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const { client, sent } = recordingClient();
    const index = new ElasticsearchSearchIndex({ node: node!, indexPrefix: prefix, ...options }, client);
    await index.init();
    opened.push({ prefix, index, client });
    sent.length = 0;
    const request = (target: SearchTarget, query: string) => ({
      query: parseQuery(query, target),
      freeText: parseFreeText('*', target),
      sort: [],
      start: 0,
      size: 1000,
    });
    const workflows = (query: string) => index.searchWorkflows(request('workflow', query));
    const tasks = (query: string) => index.searchTasks(request('task', query));
    const refresh = () => admin.indices.refresh({ index: `${prefix}_*` });
    return { prefix, index, sent, workflows, tasks, refresh };
  }

  afterAll(async () => {
    for (const { prefix, index, client } of opened) {
      await index.close();
      await client.close();
      await deleteTestIndices(admin, prefix);
    }
    await admin.close();
  });

  it('is an Elasticsearch the official client accepts, of the client’s major and minor version', async () => {
    // The client checks the X-Elastic-Product header of every answer and throws if it is missing.
    const health = await admin.cluster.health({ wait_for_status: 'yellow' });
    expect(['green', 'yellow']).toContain(health.status);
    const nodes = await admin.nodes.info({ node_id: '_local', metric: 'process' });
    const version = Object.values(nodes.nodes)[0]!.version;
    const clientVersion: string = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).dependencies['@elastic/elasticsearch'];
    expect(version.split('.').slice(0, 2)).toEqual(clientVersion.split('.').slice(0, 2));
  });

  describe('bulk requests', () => {
    it('caps a large batch at 500 documents per request', async () => {
      const es = await freshIndex();
      const many = Array.from({ length: 1234 }, (_, i) => makeWorkflowRecord({ workflowId: `wf-${i}`, workflowName: 'capped' }));
      await es.index.indexWorkflows(many);
      const bulks = es.sent.filter((s) => s.path === '/_bulk');
      expect(bulks.map((b) => b.itemStatuses.length)).toEqual([500, 500, 234]);
      await es.refresh();
      expect((await es.workflows('workflowType=capped')).totalHits).toBe(1234);
    });

    it('caps a batch of large documents at 5 MB per request', async () => {
      const es = await freshIndex();
      const big = Array.from({ length: 12 }, (_, i) =>
        makeWorkflowRecord({ workflowId: `big-${i}`, workflowName: 'big', input: { blob: 'x'.repeat(1024 * 1024) } }),
      );
      await es.index.indexWorkflows(big);
      const bulks = es.sent.filter((s) => s.path === '/_bulk');
      expect(bulks.length).toBeGreaterThanOrEqual(3);
      for (const b of bulks) expect(b.bodyBytes).toBeLessThanOrEqual(5 * 1024 * 1024);
      expect(bulks.reduce((n, b) => n + b.itemStatuses.length, 0)).toBe(12);
      await es.refresh();
      expect((await es.workflows('workflowType=big')).totalHits).toBe(12);
    });
  });

  describe('per-item results', () => {
    it('indexes the rest of a batch when the mapping refuses one document, logs its id and does not send it again', async () => {
      const { log, lines } = recordingLog();
      const es = await freshIndex({ log });
      const indexer = new Indexer(es.index, pino({ level: 'silent' }), { delayMs: 50 });
      const good = [makeWorkflowRecord({ workflowId: 'good-1', workflowName: 'mixed' }), makeWorkflowRecord({ workflowId: 'good-2', workflowName: 'mixed' })];
      // `priority` is an integer field: 2^40 breaks the mapping and Elasticsearch answers 400 for it alone.
      const bad = makeWorkflowRecord({ workflowId: 'bad-1', workflowName: 'mixed', priority: 2 ** 40 });
      indexer.add(good[0], [makeTask({ taskId: 'task-good', workflowInstanceId: 'good-1' })]);
      indexer.add(bad, []);
      indexer.add(good[1], []);
      await expect(indexer.flush()).resolves.toBeUndefined();
      await es.refresh();
      expect((await es.workflows('workflowType=mixed')).results.map((r) => r.workflowId).sort()).toEqual(['good-1', 'good-2']);
      expect((await es.tasks("taskId='task-good'")).totalHits).toBe(1);
      expect(lines).toEqual([expect.objectContaining({ id: 'bad-1', index: 'workflow', status: 400, error: 'document_parsing_exception' })]);
      // Nothing is retried: no write follows within the indexer's retry pause (1 s).
      const writes = es.sent.filter((s) => s.path === '/_bulk').length;
      await sleep(1500);
      await indexer.settled();
      expect(es.sent.filter((s) => s.path === '/_bulk').length).toBe(writes);
      expect(writes).toBe(2); // one request for the workflows, one for the task
    });

    it('sends again the items a read-only (flood-stage) block turned away, once the block is lifted', async () => {
      const es = await freshIndex({ bulkRetryMs: 200 });
      const physical = versionedIndexName(es.prefix, 'workflow', 1);
      await admin.indices.putSettings({ index: physical, settings: { 'index.blocks.read_only_allow_delete': true } });
      const docs = ['blocked-1', 'blocked-2'].map((workflowId) => makeWorkflowRecord({ workflowId, workflowName: 'blocked' }));
      const writing = es.index.indexWorkflows(docs);
      await sleep(500);
      await admin.indices.putSettings({ index: physical, settings: { 'index.blocks.read_only_allow_delete': null } });
      await writing;
      const bulks = es.sent.filter((s) => s.path === '/_bulk');
      expect(bulks[0]!.itemStatuses).toEqual([429, 429]);
      expect(bulks[bulks.length - 1]!.itemStatuses).toEqual([201, 201]);
      await es.refresh();
      expect((await es.workflows('workflowType=blocked')).totalHits).toBe(2);
    });

    it('fails the write when the cluster keeps turning items away, so the indexer keeps the batch', async () => {
      const es = await freshIndex({ bulkRetryMs: 50, bulkAttempts: 3 });
      const physical = versionedIndexName(es.prefix, 'task', 1);
      await admin.indices.putSettings({ index: physical, settings: { 'index.blocks.read_only_allow_delete': true } });
      try {
        await expect(es.index.indexTasks([makeTask({ taskId: 'kept' })])).rejects.toThrow(/after 3 attempts: 429 cluster_block_exception/);
        expect(es.sent.filter((s) => s.path === '/_bulk')).toHaveLength(3);
      } finally {
        await admin.indices.putSettings({ index: physical, settings: { 'index.blocks.read_only_allow_delete': null } });
      }
    });
  });

  describe('removals', () => {
    it('force no refresh: the workflow goes within the refresh interval, its tasks within the removal delay', async () => {
      const es = await freshIndex();
      const workflows = Array.from({ length: 10 }, (_, i) => makeWorkflowRecord({ workflowId: `rm-${i}`, workflowName: 'removed' }));
      const tasks = workflows.flatMap((w) =>
        [0, 1, 2].map((k) => makeTask({ taskId: `${w.workflowId}-t${k}`, workflowInstanceId: w.workflowId, taskType: 'removed_task' })),
      );
      await es.index.indexWorkflows(workflows);
      await es.index.indexTasks(tasks);
      await es.refresh();
      es.sent.length = 0;
      for (const w of workflows) await es.index.removeWorkflow(w.workflowId);
      // Each call is one bulk delete; nothing refreshes, nothing waits for a refresh.
      expect(es.sent.map((s) => s.path)).toEqual(Array(10).fill('/_bulk'));
      const gone = await eventually(
        () => es.workflows('workflowType=removed'),
        (r) => r.totalHits === 0,
        5000,
      );
      expect(gone.value.totalHits).toBe(0);
      expect(gone.afterMs).toBeLessThan(2500);
      const tasksGone = await eventually(
        () => es.tasks('taskType=removed_task'),
        (r) => r.totalHits === 0,
        10_000,
      );
      expect(tasksGone.value.totalHits).toBe(0);
      // The ten removals' tasks went in one lookup and one bulk delete.
      const after = es.sent.slice(10);
      expect(after.filter((s) => s.path.endsWith('/_search') && s.method === 'POST' && s.path.includes('_task')).length).toBeGreaterThanOrEqual(1);
      expect(after.filter((s) => s.path === '/_bulk').map((s) => s.itemStatuses.length)).toEqual([30]);
      for (const s of es.sent) {
        expect(s.path).not.toMatch(/_refresh|_delete_by_query/);
        expect(s.querystring).not.toMatch(/refresh=/);
      }
      console.log(`[elasticsearch] removal visible after ${gone.afterMs} ms (workflows), ${tasksGone.afterMs} ms (tasks)`);
    });

    it('keeps a removed workflow removed when an older summary arrives late, and removes tasks written just after', async () => {
      const es = await freshIndex();
      const now = Date.now();
      const w = makeWorkflowRecord({ workflowId: 'late', workflowName: 'late', updateTime: now - 50 });
      await es.index.removeWorkflow('late');
      // The indexer's batch in flight: the summary committed before the removal, and a task of it.
      await es.index.indexWorkflows([w]);
      await es.index.indexTasks([makeTask({ taskId: 'late-task', workflowInstanceId: 'late', taskType: 'late_task', updateTime: now - 40 })]);
      await es.refresh();
      expect((await es.workflows("workflowId='late'")).totalHits).toBe(0);
      const tasksGone = await eventually(
        () => es.tasks('taskType=late_task'),
        (r) => r.totalHits === 0,
        10_000,
      );
      expect(tasksGone.value.totalHits).toBe(0);
    });
  });

  describe('mappings', () => {
    it('indexes values beyond the keyword term limit and versions beyond 32 bits instead of refusing the document', async () => {
      const { log, lines } = recordingLog();
      const es = await freshIndex({ log });
      const long = makeWorkflowRecord({
        workflowId: 'long-corr',
        workflowName: 'limits',
        correlationId: 'c'.repeat(40_000),
        reasonForIncompletion: 'é'.repeat(20_000),
      });
      const bigVersion = makeWorkflowRecord({ workflowId: 'big-version', workflowName: 'limits', workflowVersion: 3_000_000_000 });
      await es.index.indexWorkflows([long, bigVersion]);
      await es.index.indexTasks([makeTask({ taskId: 'long-task', workflowType: 'limits', correlationId: 'c'.repeat(40_000) })]);
      await es.refresh();
      expect(lines).toEqual([]);
      expect((await es.workflows('workflowType=limits')).totalHits).toBe(2);
      expect((await es.workflows('version=3000000000')).results.map((r) => r.workflowId)).toEqual(['big-version']);
      expect((await es.tasks('workflowType=limits')).totalHits).toBe(1);
      const stored = await es.workflows("workflowId='long-corr'");
      expect(stored.results[0]!.correlationId).toHaveLength(40_000);
    });

    it('creates the indices from its templates behind write aliases', async () => {
      const es = await freshIndex();
      const aliases = await admin.indices.getAlias({ name: aliasName(es.prefix, 'workflow') });
      expect(aliases[versionedIndexName(es.prefix, 'workflow', 1)]!.aliases[aliasName(es.prefix, 'workflow')]).toEqual({ is_write_index: true });
      const mapping = await admin.indices.getMapping({ index: versionedIndexName(es.prefix, 'task', 1) });
      const props = Object.values(mapping)[0]!.mappings.properties!;
      expect(props.workflowId).toEqual({ type: 'keyword', ignore_above: 8191 });
      expect(props.scheduledTime).toMatchObject({ type: 'date' });
      const settings = await admin.indices.getSettings({ index: versionedIndexName(es.prefix, 'task', 1) });
      expect(Object.values(settings)[0]!.settings!.index!.refresh_interval).toBe('1s');
    });
  });
});
