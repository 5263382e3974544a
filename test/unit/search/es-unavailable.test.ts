import { errors, type Client } from '@elastic/elasticsearch';
import pino from 'pino';
import { toErrorBody } from '../../../src/api/errors';
import { ElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-index';
import { isUnavailable } from '../../../src/search/elasticsearch/es-unavailable';
import { parseFreeText } from '../../../src/search/query';
import { SearchUnavailable } from '../../../src/search/search-unavailable';
import { makeWorkflowRecord } from '../../contracts/fixtures';

const responseError = (statusCode: number, type: string) =>
  new errors.ResponseError({ body: { error: { type } }, statusCode, warnings: null, meta: {} as never });

describe('Elasticsearch unavailable', () => {
  it.each([
    ['connection refused', new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200')],
    ['timeout', new errors.TimeoutError('Request timed out')],
    ['no living connection', new errors.NoLivingConnectionsError('There are no living connections', {} as never)],
    ['429', responseError(429, 'es_rejected_execution_exception')],
    ['503', responseError(503, 'search_phase_execution_exception')],
    ['502 of a proxy', responseError(502, 'bad_gateway')],
  ])('%s is unavailability', (_name, err) => {
    expect(isUnavailable(err)).toBe(true);
  });

  it.each([
    ['a refused query', responseError(400, 'parsing_exception')],
    ['a missing index', responseError(404, 'index_not_found_exception')],
    ['a bug', new TypeError('x is undefined')],
  ])('%s is not', (_name, err) => {
    expect(isUnavailable(err)).toBe(false);
  });

  const down = (err: Error) => {
    const fail = async () => {
      throw err;
    };
    return new ElasticsearchSearchIndex({ node: 'http://es' }, { search: fail, openPointInTime: fail, close: async () => undefined } as unknown as Client);
  };
  const request = { freeText: parseFreeText('*'), sort: [], start: 0, size: 10 };

  it('a search while Elasticsearch refuses connections answers a retryable 503 in Conductor form', async () => {
    const index = down(new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200'));
    for (const search of [() => index.searchWorkflows(request), () => index.searchTasks(request), () => index.searchWorkflows({ ...request, start: 20_000 })]) {
      const err = await search().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SearchUnavailable);
      expect(toErrorBody(err)).toMatchObject({ status: 503, retryable: true, message: expect.stringContaining('ECONNREFUSED') });
    }
  });

  it('a query Elasticsearch refuses keeps its own error', async () => {
    const err = await down(responseError(400, 'parsing_exception'))
      .searchWorkflows(request)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errors.ResponseError);
  });

  it('a write while Elasticsearch refuses connections fails with an error that logs in one short line, without the request body', async () => {
    const input = { payload: 'x'.repeat(100_000) };
    const refused = new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200', {
      body: undefined,
      statusCode: 0,
      headers: {},
      warnings: null,
      meta: { request: { params: { body: JSON.stringify(input) } } },
    } as never);
    const fail = async () => {
      throw refused;
    };
    const index = new ElasticsearchSearchIndex({ node: 'http://es' }, { bulk: fail, close: async () => undefined } as unknown as Client);
    const err = await index.indexWorkflows([makeWorkflowRecord({ workflowId: 'w1', input })]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchUnavailable);
    const logged = JSON.stringify(pino.stdSerializers.err(err as Error));
    expect(logged).toContain('ECONNREFUSED');
    expect(logged).not.toContain('xxxxxxxxxx');
  });
});
