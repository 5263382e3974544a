import { errors, type Client } from '@elastic/elasticsearch';
import { ElasticsearchSearchIndex } from '../../../src/index/elasticsearch/elasticsearch-index';
import { parseFreeText } from '../../../src/index/query';
import { summarizeWorkflow } from '../../../src/index/summaries';
import { makeWorkflowRecord, T0 } from '../../contracts/fixtures';

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

describe('ElasticsearchSearchIndex', () => {
  it('installs both templates and creates the first versioned index behind a missing alias', async () => {
    const { client, calls } = recordingClient({ 'indices.existsAlias': (p) => p.name === 'acme_task' });
    await new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'acme' }, client).init();
    expect(calls.filter((c) => c.api === 'indices.putIndexTemplate').map((c) => c.params.name)).toEqual([
      'acme_workflow_template',
      'acme_task_template',
    ]);
    expect(calls.filter((c) => c.api === 'indices.create').map((c) => c.params)).toEqual([
      { index: 'acme_workflow_v1', aliases: { acme_workflow: { is_write_index: true } } },
    ]);
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

  it('writes summaries in one bulk request, versioned externally by updateTime', async () => {
    const { client, calls } = recordingClient({ bulk: () => ({ errors: false, items: [] }) });
    const top = makeWorkflowRecord({ workflowId: 'wf-1', updateTime: T0 + 5 });
    const child = makeWorkflowRecord({ workflowId: 'wf-2', updateTime: T0 + 7, parentWorkflowId: 'wf-1' });
    await new ElasticsearchSearchIndex({ node: 'http://es', refresh: 'wait_for' }, client).indexWorkflows([top, child]);
    const { parentWorkflowId: _none, ...topDoc } = summarizeWorkflow(top);
    expect(calls).toEqual([
      {
        api: 'bulk',
        params: {
          refresh: 'wait_for',
          operations: [
            { index: { _index: 'baton_workflow', _id: 'wf-1', version: T0 + 5, version_type: 'external_gte' } },
            topDoc,
            { index: { _index: 'baton_workflow', _id: 'wf-2', version: T0 + 7, version_type: 'external_gte' } },
            summarizeWorkflow(child),
          ],
        },
      },
    ]);
  });

  it('drops stale writes (version conflicts) and fails on any other rejection', async () => {
    const conflict = { index: { status: 409, error: { type: 'version_conflict_engine_exception', reason: 'newer' } } };
    const ok = { index: { status: 201 } };
    const stale = recordingClient({ bulk: () => ({ errors: true, items: [ok, conflict] }) });
    const docs = [makeWorkflowRecord(), makeWorkflowRecord()];
    await expect(new ElasticsearchSearchIndex({ node: 'http://es' }, stale.client).indexWorkflows(docs)).resolves.toBeUndefined();

    const broken = recordingClient({
      bulk: () => ({ errors: true, items: [conflict, { index: { status: 400, error: { type: 'mapper_parsing_exception', reason: 'bad' } } }] }),
    });
    await expect(new ElasticsearchSearchIndex({ node: 'http://es' }, broken.client).indexWorkflows(docs)).rejects.toThrow(
      'Elasticsearch rejected 1 of 2 workflow documents: mapper_parsing_exception: bad',
    );
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

  it('removes a workflow and, after a refresh, its tasks', async () => {
    const { client, calls } = recordingClient({});
    await new ElasticsearchSearchIndex({ node: 'http://es', indexPrefix: 'p' }, client).removeWorkflow('wf-1');
    expect(calls.map((c) => c.api)).toEqual(['delete', 'indices.refresh', 'deleteByQuery']);
    expect(calls[0]!.params).toMatchObject({ index: 'p_workflow', id: 'wf-1' });
    expect(calls[2]!.params).toMatchObject({ index: 'p_task', query: { term: { workflowId: 'wf-1' } }, conflicts: 'proceed' });
  });
});
