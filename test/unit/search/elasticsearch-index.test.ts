import { v7 } from 'uuid';
import { errors, type Client } from '@elastic/elasticsearch';
import pino from 'pino';
import { ElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-index';
import { parseFreeText } from '../../../src/search/query';
import { summarizeWorkflow } from '../../../src/search/summaries';
import { makeTask, makeWorkflowRecord, T0 } from '../../contracts/fixtures';

/**
 * The adapter's request plans, checked against a recording stand-in for the client. The real server
 * behaviour is the contract suite's job (test/contracts/search-index.elasticsearch.test.ts).
 */
type Call = { api: string; params: Record<string, unknown> };

function recordingClient(responses: Partial<Record<string, (params: Record<string, unknown>) => unknown>>) {
  const calls: Call[] = [];
  const api = (name: string) => async (params: Record<string, unknown>) => {
    calls.push({ api: name, params });
    const respond = responses[name];
    return respond ? respond(params) : {};
  };
  const client = {
    indices: {
      putIndexTemplate: api('indices.putIndexTemplate'),
      existsAlias: api('indices.existsAlias'),
      create: api('indices.create'),
      refresh: api('indices.refresh'),
      getMapping: api('indices.getMapping'),
      putMapping: api('indices.putMapping'),
    },
    bulk: api('bulk'),
    delete: api('delete'),
    deleteByQuery: api('deleteByQuery'),
    search: api('search'),
    openPointInTime: api('openPointInTime'),
    closePointInTime: api('closePointInTime'),
    close: api('close'),
  };
  return { client: client as unknown as Client, calls };
}

const request = (start: number, size: number) => ({ freeText: parseFreeText('*'), sort: [], start, size });

/** A logger that keeps what it was told. */
function recordingLog() {
  const warnings: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  return { log, warnings };
}

/** A bulk answer with one item per operation of the request, given the status of each. */
const answer = (statuses: Array<number | { status: number; type: string }>) => ({
  errors: statuses.some((s) => (typeof s === 'number' ? s >= 300 : true)),
  items: statuses.map((s) =>
    typeof s === 'number' ? { index: { status: s } } : { index: { status: s.status, error: { type: s.type, reason: `${s.type} reason` } } },
  ),
});

describe('ElasticsearchSearchIndex', () => {
  it('installs the templates (versioned and period indices) and creates the first versioned index behind a missing alias', async () => {
    const { client, calls } = recordingClient({ 'indices.existsAlias': (p) => p.name === 'acme_task' });
    await new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'acme' }, client).init();
    const templates = calls.filter((c) => c.api === 'indices.putIndexTemplate').map((c) => c.params);
    expect(templates.map((t) => t.name)).toEqual([
      'acme_workflow_template',
      'acme_workflow_period_template',
      'acme_task_template',
      'acme_task_period_template',
    ]);
    // A period index is created at its first write, already behind the read alias (not as its write index).
    expect(templates[1]).toMatchObject({ index_patterns: expect.arrayContaining(['acme_workflow_2*']), template: { aliases: { acme_workflow: {} } } });
    expect(templates[0]!.index_patterns).toEqual(['acme_workflow_v*']);
    expect(calls.filter((c) => c.api === 'indices.create').map((c) => c.params)).toEqual([
      { index: 'acme_workflow_v1', aliases: { acme_workflow: { is_write_index: true } } },
    ]);
  });

  it('keeps executions created before periods existed in _v1, where an older release indexed them', async () => {
    const upgraded = (meta: Record<string, unknown>) =>
      recordingClient({
        'indices.existsAlias': () => true,
        'indices.getMapping': () => ({ acme_workflow_v1: { mappings: { dynamic: false, _meta: meta } } }),
        bulk: (p) => ({ errors: false, items: (p.operations as unknown[]).map(() => ({ index: { status: 201 } })) }),
      });
    const before = v7({ msecs: Date.now() - 86_400_000 });
    const targets = (calls: Call[]) =>
      calls
        .filter((c) => c.api === 'bulk')
        .flatMap((c) => (c.params.operations as Array<{ index?: { _index: string } }>).filter((o) => o.index).map((o) => o.index!._index));

    // First start of this release on an existing _v1: the cut-over is now, recorded for the other replicas.
    const first = upgraded({ other: 'kept' });
    const started = Date.now();
    const index = new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'acme' }, first.client);
    await index.init();
    const put = first.calls.find((c) => c.api === 'indices.putMapping')!.params as { index: string; _meta: Record<string, number | string> };
    expect(put.index).toBe('acme_workflow_v1');
    expect(put._meta).toMatchObject({ other: 'kept' });
    expect(put._meta.baton_periods_since).toBeGreaterThanOrEqual(started);
    const after = v7({ msecs: Date.now() + 1000 });
    await index.indexWorkflows([makeWorkflowRecord({ workflowId: before }), makeWorkflowRecord({ workflowId: after })]);
    expect(targets(first.calls)).toEqual(['acme_workflow_v1', `acme_workflow_${new Date(Date.now() + 1000).toISOString().slice(0, 7).replace('-', '.')}`]);

    // Later starts read it and write nothing.
    const later = upgraded({ baton_periods_since: 5 });
    const again = new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'acme' }, later.client);
    await again.init();
    expect(later.calls.some((c) => c.api === 'indices.putMapping')).toBe(false);
    await again.indexWorkflows([makeWorkflowRecord({ workflowId: before })]);
    expect(targets(later.calls)[0]).toMatch(/^acme_workflow_\d{4}\.\d{2}$/);
  });

  it('accepts that another replica created the index first', async () => {
    const exists = new errors.ResponseError({
      body: { error: { type: 'resource_already_exists_exception' } },
      statusCode: 400,
      warnings: null,
      meta: {} as never,
    });
    const { client } = recordingClient({
      'indices.existsAlias': () => false,
      'indices.create': () => {
        throw exists;
      },
    });
    await expect(new ElasticsearchSearchIndex({ node: 'http://es' }, client).init()).resolves.toBeUndefined();
  });

  it('writes summaries in one bulk request, versioned externally by updateTime, each naming its index', async () => {
    const { client, calls } = recordingClient({ bulk: () => answer([201, 201]) });
    const top = makeWorkflowRecord({ workflowId: 'wf-1', updateTime: T0 + 5 });
    // A UUIDv7 id: the index of the month it was created in.
    const childId = v7({ msecs: Date.UTC(2026, 1, 28, 23, 59) });
    const child = makeWorkflowRecord({ workflowId: childId, updateTime: T0 + 7, parentWorkflowId: 'wf-1' });
    await new ElasticsearchSearchIndex({ node: 'http://es', refresh: 'wait_for' }, client).indexWorkflows([top, child]);
    const { parentWorkflowId: _none, ...topDoc } = summarizeWorkflow(top);
    expect(calls).toEqual([
      {
        api: 'bulk',
        params: {
          refresh: 'wait_for',
          operations: [
            { index: { _index: 'baton_workflow_v1', _id: 'wf-1', version: T0 + 5, version_type: 'external_gte' } },
            topDoc,
            { index: { _index: 'baton_workflow_2026.02', _id: childId, version: T0 + 7, version_type: 'external_gte' } },
            summarizeWorkflow(child),
          ],
        },
      },
    ]);
  });

  it('drops stale writes (version conflicts) and logs refused documents with their id instead of failing the batch', async () => {
    const { log, warnings } = recordingLog();
    const { client, calls } = recordingClient({ bulk: () => answer([201, 409, { status: 400, type: 'document_parsing_exception' }]) });
    const docs = [makeWorkflowRecord({ workflowId: 'ok' }), makeWorkflowRecord({ workflowId: 'stale' }), makeWorkflowRecord({ workflowId: 'bad' })];
    await expect(new ElasticsearchSearchIndex({ node: 'http://es', log }, client).indexWorkflows(docs)).resolves.toBeUndefined();
    expect(calls.filter((c) => c.api === 'bulk')).toHaveLength(1); // nothing is sent again
    expect(warnings).toEqual([expect.objectContaining({ id: 'bad', index: 'workflow', status: 400, error: 'document_parsing_exception' })]);
  });

  it('sends again only the items the cluster could not take, then fails when they keep failing', async () => {
    const sent: string[][] = [];
    const busy = { status: 429, type: 'es_rejected_execution_exception' };
    let round = 0;
    const { client } = recordingClient({
      bulk: (p) => {
        const ids = (p.operations as Array<{ index?: { _id: string } }>).filter((o) => o.index).map((o) => o.index!._id);
        sent.push(ids);
        round++;
        // Round 1: the second is refused for good, the third is busy; round 2: busy again; round 3: taken.
        if (round === 1) return answer([201, { status: 400, type: 'document_parsing_exception' }, busy]);
        return answer(round === 2 ? [busy] : [201]);
      },
    });
    const { log } = recordingLog();
    const docs = ['a', 'b', 'c'].map((workflowId) => makeWorkflowRecord({ workflowId }));
    await new ElasticsearchSearchIndex({ node: 'http://es', log, bulkRetryMs: 1 }, client).indexWorkflows(docs);
    expect(sent).toEqual([['a', 'b', 'c'], ['c'], ['c']]);

    const stuck = recordingClient({ bulk: () => answer([busy]) });
    await expect(
      new ElasticsearchSearchIndex({ node: 'http://es', log, bulkRetryMs: 1, bulkAttempts: 3 }, stuck.client).indexWorkflows([docs[0]!]),
    ).rejects.toThrow('Elasticsearch did not take 1 of 1 workflow operations after 3 attempts: 429 es_rejected_execution_exception');
    expect(stuck.calls.filter((c) => c.api === 'bulk')).toHaveLength(3);
  });

  it('splits a batch into requests within the document and byte caps', async () => {
    const sizes: number[] = [];
    const { client } = recordingClient({
      bulk: (p) => {
        const n = (p.operations as unknown[]).length / 2;
        sizes.push(n);
        return answer(Array(n).fill(201));
      },
    });
    const docs = Array.from({ length: 7 }, (_, i) => makeWorkflowRecord({ workflowId: `w${i}`, input: { blob: 'x'.repeat(1000) } }));
    await new ElasticsearchSearchIndex({ node: 'http://es', bulkLimits: { maxDocs: 3, maxBytes: 1_000_000 } }, client).indexWorkflows(docs);
    expect(sizes).toEqual([3, 3, 1]);
    sizes.length = 0;
    // Each operation is ~1.5 kB of NDJSON: two fit in 3.5 kB, three do not.
    await new ElasticsearchSearchIndex({ node: 'http://es', bulkLimits: { maxDocs: 500, maxBytes: 3500 } }, client).indexWorkflows(docs);
    expect(sizes).toEqual([2, 2, 2, 1]);
  });

  it('sends nothing for an empty batch', async () => {
    const { client, calls } = recordingClient({});
    await new ElasticsearchSearchIndex({ node: 'http://es' }, client).indexTasks([]);
    expect(calls).toEqual([]);
  });

  it('pages with from/size inside the result window and restores the empty parentWorkflowId', async () => {
    const doc = { ...summarizeWorkflow(makeWorkflowRecord({ workflowId: 'wf-9' })) } as Record<string, unknown>;
    delete doc.parentWorkflowId;
    const { client, calls } = recordingClient({ search: () => ({ hits: { total: { value: 42, relation: 'eq' }, hits: [{ _source: doc }] } }) });
    const result = await new ElasticsearchSearchIndex({ node: 'http://es' }, client).searchWorkflows(request(20, 10));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params).toMatchObject({ index: 'baton_workflow', from: 20, size: 10, track_total_hits: true, query: { match_all: {} } });
    expect(result).toEqual({ totalHits: 42, results: [{ ...doc, parentWorkflowId: '' }] });
  });

  it('caps the page size at 5000', async () => {
    const { client, calls } = recordingClient({ search: () => ({ hits: { total: 0, hits: [] } }) });
    await new ElasticsearchSearchIndex({ node: 'http://es' }, client).searchTasks(request(0, 50_000));
    expect(calls[0]!.params).toMatchObject({ index: 'baton_task', size: 5000 });
  });

  it('reaches pages beyond the result window with a point in time and search_after', async () => {
    const total = 30_000;
    const { client, calls } = recordingClient({
      openPointInTime: () => ({ id: 'pit-1' }),
      search: (p) => {
        // Hits are numbered by position; each carries its position as the sort value.
        const from = p.search_after ? (p.search_after as number[])[0]! + 1 : 0;
        const size = Math.min(p.size as number, total - from);
        const hits = Array.from({ length: size }, (_, i) => ({ sort: [from + i], _source: { taskId: `task-${from + i}` } }));
        return { pit_id: 'pit-1', hits: { total: { value: total, relation: 'eq' }, hits } };
      },
    });
    const index = new ElasticsearchSearchIndex({ node: 'http://es' }, client);
    const result = await index.searchTasks(request(25_000, 3));
    expect(result).toEqual({ totalHits: total, results: [{ taskId: 'task-25000' }, { taskId: 'task-25001' }, { taskId: 'task-25002' }] });
    const searches = calls.filter((c) => c.api === 'search').map((c) => c.params);
    expect(searches.map((s) => [s.size, s.search_after, s._source])).toEqual([
      [10_000, undefined, false],
      [10_000, [9_999], false],
      [5_000, [19_999], false],
      [3, [24_999], undefined],
    ]);
    for (const s of searches) expect(s.pit).toEqual({ id: 'pit-1', keep_alive: '1m' });
    expect(calls.find((c) => c.api === 'openPointInTime')!.params).toEqual({ index: 'baton_task', keep_alive: '1m' });
    expect(calls[calls.length - 1]).toEqual({ api: 'closePointInTime', params: { id: 'pit-1' } });
  });

  it('returns an empty deep page with the total when start is past the last match', async () => {
    const { client, calls } = recordingClient({
      openPointInTime: () => ({ id: 'pit-2' }),
      search: (p) => {
        const n = p.size === 0 ? 0 : 1_234;
        const hits = Array.from({ length: n }, (_, i) => ({ sort: [i], _source: {} }));
        return { hits: { total: { value: 1_234, relation: 'eq' }, hits } };
      },
    });
    const result = await new ElasticsearchSearchIndex({ node: 'http://es' }, client).searchWorkflows(request(20_000, 10));
    expect(result).toEqual({ totalHits: 1_234, results: [] });
    expect(calls.filter((c) => c.api === 'search').map((c) => c.params.size)).toEqual([10_000, 0]);
    expect(calls.some((c) => c.api === 'closePointInTime')).toBe(true);
  });

  it("names the period index of the workflow's id for its tasks and its removal, whatever the task's own id or time", async () => {
    const { client, calls } = recordingClient({
      bulk: (p) => ({ errors: false, items: (p.operations as unknown[]).map(() => ({ index: { status: 201 } })) }),
      search: () => ({ hits: { hits: [] } }), // the deferred lookup of the removed workflow's tasks, at close
    });
    const index = new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'p', period: 'day' }, client);
    const workflowId = v7({ msecs: Date.UTC(2026, 0, 31, 23, 59, 59, 999) });
    const later = v7({ msecs: Date.UTC(2026, 5, 1) });
    await index.indexTasks([
      makeTask({ taskId: later, workflowInstanceId: workflowId, scheduledTime: Date.UTC(2026, 5, 1) }),
      makeTask({ taskId: 't-2', workflowInstanceId: 'client-id' }),
    ]);
    await index.removeWorkflow(workflowId);
    const targets = calls.flatMap((c) =>
      (c.params.operations as Array<Record<string, { _index?: string }>>).filter((o) => o.index || o.delete).map((o) => (o.index ?? o.delete)!._index),
    );
    expect(targets).toEqual(['p_task_2026.01.31', 'p_task_v1', 'p_workflow_2026.01.31']);
    await index.close();
  });

  it('removes a workflow with a clock-versioned delete and no refresh, and its tasks later in one lookup', async () => {
    const { client, calls } = recordingClient({
      bulk: (p) => ({ errors: false, items: (p.operations as unknown[]).map(() => ({ delete: { status: 200 } })) }),
      search: (p) => {
        const ids = (p.query as { terms: { workflowId: string[] } }).terms.workflowId;
        return { hits: { hits: ids.map((id) => ({ _index: 'p_task_v1', _id: `${id}-task`, sort: [`${id}-task`] })) } };
      },
    });
    const index = new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'p', taskRemovalDelayMs: 20 }, client);
    const before = Date.now();
    await index.removeWorkflow('wf-1');
    await index.removeWorkflow('wf-2');
    expect(calls.map((c) => c.api)).toEqual(['bulk', 'bulk']);
    const [del] = calls[0]!.params.operations as Array<{ delete: { _index: string; _id: string; version: number; version_type: string } }>;
    expect(del!.delete).toMatchObject({ _index: 'p_workflow_v1', _id: 'wf-1', version_type: 'external_gte' });
    expect(del!.delete.version).toBeGreaterThan(before);
    for (const c of calls) expect(c.params.refresh).toBeUndefined();

    for (const until = Date.now() + 2000; calls.length < 4 && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
    expect(calls.slice(2).map((c) => c.api)).toEqual(['search', 'bulk']);
    expect(calls[2]!.params).toMatchObject({ index: 'p_task', query: { terms: { workflowId: ['wf-1', 'wf-2'] } }, _source: false });
    expect(calls[3]!.params.operations).toEqual([{ delete: { _index: 'p_task_v1', _id: 'wf-1-task' } }, { delete: { _index: 'p_task_v1', _id: 'wf-2-task' } }]);
    expect(calls.some((c) => c.api === 'indices.refresh' || c.api === 'deleteByQuery')).toBe(false);
    await index.close();
  });

  it('deletes a summary newer than its clock unversioned, and the pending task documents at close', async () => {
    let first = true;
    const { client, calls } = recordingClient({
      bulk: () => {
        const conflict = first;
        first = false;
        return conflict
          ? { errors: true, items: [{ delete: { status: 409, error: { type: 'version_conflict_engine_exception', reason: 'newer' } } }] }
          : { errors: false, items: [{ delete: { status: 200 } }] };
      },
      search: () => ({ hits: { hits: [] } }),
    });
    const index = new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'p', taskRemovalDelayMs: 60_000 }, client);
    await index.removeWorkflow('wf-1');
    expect((calls[1]!.params.operations as unknown[])[0]).toEqual({ delete: { _index: 'p_workflow_v1', _id: 'wf-1' } });
    await index.close();
    expect(calls.slice(2).map((c) => c.api)).toEqual(['indices.refresh', 'search', 'close']);
  });
});
