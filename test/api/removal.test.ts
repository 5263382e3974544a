import { apiClient } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';

// A removed execution (archiveWorkflow=false) is gone from the search index too, even when its
// documents are still waiting for the index's next flush when it is removed, and after a restart.
// The flush interval is a minute here, so every document of these executions is still queued in the
// indexer when they are removed; closing the server flushes what is queued.

const SECRET = 'card-4111-1111';
let b: TestBaton;
let dataDir: string;
// Asked per request: `b` is a new server after each restart below.
const api = apiClient(() => b.url);

beforeAll(async () => {
  b = await startBaton({ BATON_INDEX_FLUSH_MS: '60000' });
  dataDir = b.dataDir;
});
afterAll(async () => {
  await b?.stop();
});

const searchWorkflows = (id: string) => api.call('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId='${id}'`)}`);
const searchFreeText = (text: string) => api.call('GET', `/api/workflow/search?freeText=${encodeURIComponent(text)}`);
const searchTasks = (id: string) => api.call('GET', `/api/tasks/search?query=${encodeURIComponent(`workflowId='${id}'`)}`);

test('removed through each remove path, an execution stays out of the index while its documents were still queued, and after a restart', async () => {
  const name = api.uniq('removal');
  await api.register({ name, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }] });
  const start = (): Promise<string> => api.start(name, { secret: SECRET });
  const [single, bulk, terminated] = [await start(), await start(), await start()];
  for (const id of [single, bulk]) expect((await api.call('DELETE', `/api/workflow/${id}?reason=done`)).status).toBe(200);

  expect((await api.call('DELETE', `/api/workflow/${single}/remove?archiveWorkflow=false`)).status).toBe(200);
  const bulkRemoved = await api.call('DELETE', '/api/workflow/bulk/remove?archiveWorkflow=false', [bulk]);
  expect(bulkRemoved.body).toEqual({ bulkErrorResults: {}, bulkSuccessfulResults: [bulk] });
  expect((await api.call('DELETE', `/api/workflow/${terminated}/terminate-remove?archiveWorkflow=false`)).status).toBe(200);

  const ids = [single, bulk, terminated];
  const expectGone = async (): Promise<void> => {
    for (const id of ids) {
      expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(404);
      expect((await searchWorkflows(id)).body.totalHits).toBe(0);
      expect((await searchTasks(id)).body.totalHits).toBe(0);
    }
    expect((await searchFreeText(SECRET)).body.totalHits).toBe(0);
  };
  await expectGone();

  // Closing flushes whatever the indexer still holds; before, that wrote the removed records back.
  await b.stop();
  b = await startBaton({ BATON_DATA_DIR: dataDir, BATON_INDEX_FLUSH_MS: '60000' });
  await expectGone();
});

test('an archived execution (the default) leaves the store but stays searchable, as in Conductor', async () => {
  const name = api.uniq('archive');
  await api.register({ name, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }] });
  const id = await api.start(name);
  expect((await api.call('DELETE', `/api/workflow/${id}?reason=done`)).status).toBe(200);
  expect((await api.call('DELETE', `/api/workflow/${id}/remove`)).status).toBe(200);
  expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(404);
  await b.stop();
  b = await startBaton({ BATON_DATA_DIR: dataDir, BATON_INDEX_FLUSH_MS: '60000' });
  expect((await searchWorkflows(id)).body.totalHits).toBe(1);
});
