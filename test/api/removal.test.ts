import { call, startBaton, type TestBaton } from '../support/baton';

// A removed execution (archiveWorkflow=false) is gone from the search index too, even when its
// documents are still waiting for the index's next flush when it is removed, and after a restart.
// The flush interval is a minute here, so every document of these executions is still queued in the
// indexer when they are removed; closing the server flushes what is queued.

const SECRET = 'card-4111-1111';
let b: TestBaton;
let dataDir: string;

beforeAll(async () => {
  b = await startBaton({ BATON_INDEX_FLUSH_MS: '60000' });
  dataDir = b.dataDir;
});
afterAll(async () => {
  await b?.stop();
});

const searchWorkflows = (base: string, id: string) => call(base, 'GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId='${id}'`)}`);
const searchFreeText = (base: string, text: string) => call(base, 'GET', `/api/workflow/search?freeText=${encodeURIComponent(text)}`);
const searchTasks = (base: string, id: string) => call(base, 'GET', `/api/tasks/search?query=${encodeURIComponent(`workflowId='${id}'`)}`);

test('removed through each remove path, an execution stays out of the index while its documents were still queued, and after a restart', async () => {
  const name = `removal_${Date.now().toString(36)}`;
  expect((await call(b.url, 'POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }] })).status).toBe(200);
  const start = async (): Promise<string> => {
    const r = await call(b.url, 'POST', '/api/workflow', { name, input: { secret: SECRET } });
    expect(r.status).toBe(200);
    return r.text;
  };
  const [single, bulk, terminated] = [await start(), await start(), await start()];
  for (const id of [single, bulk]) expect((await call(b.url, 'DELETE', `/api/workflow/${id}?reason=done`)).status).toBe(200);

  expect((await call(b.url, 'DELETE', `/api/workflow/${single}/remove?archiveWorkflow=false`)).status).toBe(200);
  const bulkRemoved = await call(b.url, 'DELETE', '/api/workflow/bulk/remove?archiveWorkflow=false', [bulk]);
  expect(bulkRemoved.body).toEqual({ bulkErrorResults: {}, bulkSuccessfulResults: [bulk] });
  expect((await call(b.url, 'DELETE', `/api/workflow/${terminated}/terminate-remove?archiveWorkflow=false`)).status).toBe(200);

  const ids = [single, bulk, terminated];
  const expectGone = async (base: string): Promise<void> => {
    for (const id of ids) {
      expect((await call(base, 'GET', `/api/workflow/${id}`)).status).toBe(404);
      expect((await searchWorkflows(base, id)).body.totalHits).toBe(0);
      expect((await searchTasks(base, id)).body.totalHits).toBe(0);
    }
    expect((await searchFreeText(base, SECRET)).body.totalHits).toBe(0);
  };
  await expectGone(b.url);

  // Closing flushes whatever the indexer still holds; before, that wrote the removed records back.
  await b.stop();
  b = await startBaton({ BATON_DATA_DIR: dataDir, BATON_INDEX_FLUSH_MS: '60000' });
  await expectGone(b.url);
});

test('an archived execution (the default) leaves the store but stays searchable, as in Conductor', async () => {
  const name = `archive_${Date.now().toString(36)}`;
  expect((await call(b.url, 'POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }] })).status).toBe(200);
  const id = (await call(b.url, 'POST', '/api/workflow', { name, input: {} })).text;
  expect((await call(b.url, 'DELETE', `/api/workflow/${id}?reason=done`)).status).toBe(200);
  expect((await call(b.url, 'DELETE', `/api/workflow/${id}/remove`)).status).toBe(200);
  expect((await call(b.url, 'GET', `/api/workflow/${id}`)).status).toBe(404);
  await b.stop();
  b = await startBaton({ BATON_DATA_DIR: dataDir, BATON_INDEX_FLUSH_MS: '60000' });
  expect((await searchWorkflows(b.url, id)).body.totalHits).toBe(1);
});
