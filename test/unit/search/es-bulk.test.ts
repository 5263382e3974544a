import { chunkBulk, entryBytes, itemOutcome, operationsOf, type BulkEntry } from '../../../src/search/elasticsearch/es-bulk';

const entry = (id: string, docBytes?: number): BulkEntry => ({
  id,
  action: docBytes === undefined ? { delete: { _index: 'i', _id: id } } : { index: { _index: 'i', _id: id } },
  doc: docBytes === undefined ? undefined : { pad: 'x'.repeat(docBytes) },
});
const ids = (chunks: BulkEntry[][]) => chunks.map((c) => c.map((e) => e.id));

describe('chunkBulk', () => {
  it('counts the NDJSON bytes of the action line and the document line', () => {
    const action = '{"index":{"_index":"i","_id":"a"}}\n';
    expect(entryBytes(entry('a', 3))).toBe(action.length + '{"pad":"xxx"}\n'.length);
    expect(entryBytes(entry('é'))).toBe(Buffer.byteLength('{"delete":{"_index":"i","_id":"é"}}\n'));
  });

  it('caps each request by operations and by bytes, keeping order', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((id) => entry(id, 10));
    expect(ids(chunkBulk(five, { maxDocs: 2, maxBytes: 1e6 }))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    const size = entryBytes(five[0]!);
    expect(ids(chunkBulk(five, { maxDocs: 500, maxBytes: size * 3 }))).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(ids(chunkBulk(five, { maxDocs: 500, maxBytes: size * 3 - 1 }))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('sends a document larger than the byte cap alone rather than never', () => {
    const chunks = chunkBulk([entry('small', 10), entry('huge', 10_000), entry('small2', 10)], { maxDocs: 500, maxBytes: 1000 });
    expect(ids(chunks)).toEqual([['small'], ['huge'], ['small2']]);
  });

  it('has nothing to send for nothing', () => {
    expect(chunkBulk([])).toEqual([]);
  });

  it('writes an action line, and a document line for index operations', () => {
    expect(operationsOf([entry('a', 1), entry('b')])).toEqual([{ index: { _index: 'i', _id: 'a' } }, { pad: 'x' }, { delete: { _index: 'i', _id: 'b' } }]);
  });
});

describe('itemOutcome', () => {
  const failed = (status: number, type: string) => ({ _index: 'i', status, error: { type, reason: 'r' } });
  it('reads applied writes and deletes of missing documents as done', () => {
    expect(itemOutcome({ _index: 'i', status: 201 }, 'index')).toBe('ok');
    expect(itemOutcome({ _index: 'i', status: 200 }, 'delete')).toBe('ok');
    expect(itemOutcome({ _index: 'i', status: 404 }, 'delete')).toBe('ok');
  });

  it('reads version conflicts as stale', () => {
    expect(itemOutcome(failed(409, 'version_conflict_engine_exception'), 'index')).toBe('stale');
  });

  it('retries back-pressure, unavailable shards and blocks', () => {
    expect(itemOutcome(failed(429, 'es_rejected_execution_exception'), 'index')).toBe('retry');
    expect(itemOutcome(failed(429, 'cluster_block_exception'), 'index')).toBe('retry'); // flood-stage read-only block
    expect(itemOutcome(failed(403, 'cluster_block_exception'), 'index')).toBe('retry'); // index.blocks.write
    expect(itemOutcome(failed(503, 'unavailable_shards_exception'), 'index')).toBe('retry');
    expect(itemOutcome(failed(404, 'index_not_found_exception'), 'index')).toBe('retry');
    expect(itemOutcome(undefined, 'index')).toBe('retry');
  });

  it('gives up on documents the mapping refuses', () => {
    expect(itemOutcome(failed(400, 'document_parsing_exception'), 'index')).toBe('rejected');
    expect(itemOutcome(failed(400, 'mapper_parsing_exception'), 'index')).toBe('rejected');
    expect(itemOutcome(failed(400, 'illegal_argument_exception'), 'index')).toBe('rejected');
    expect(itemOutcome(failed(500, 'exception'), 'index')).toBe('rejected');
  });
});
