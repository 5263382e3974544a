import { apiClient } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';
import { purgeAhead } from '../support/purge-ahead';

// An execution purged into the archive (a definition's retention with archive: true) still answers
// GET /api/workflow/{id}, marked archived with the status it ended with; every change to it is a 409.
// The purge runs with a clock two days ahead, on the server's data directory between two runs of it.

const DAY = 86_400_000;
let b: TestBaton;
const api = apiClient(() => b.url);

afterAll(async () => {
  await b?.stop();
});

test('a definition keeps its retention; a bad one is a 400', async () => {
  b = await startBaton();
  const name = api.uniq('retention_def');
  await api.register({ name, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }], retention: { days: 3, archive: true } });
  const def = await api.call('GET', `/api/metadata/workflow/${name}`);
  expect(def.body).toMatchObject({ name, retention: { days: 3, archive: true } });
  const bad = await api.call('POST', '/api/metadata/workflowdef', {
    name: `${name}_bad`,
    version: 1,
    tasks: [{ name: 't', taskReferenceName: 't' }],
    retention: { days: -2 },
  });
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  expect((await api.call('GET', `/api/metadata/workflow/${name}_bad`)).status).toBe(404);
});

test('an archived execution answers GET from the archive, marked archived, and refuses changes with a 409', async () => {
  const name = api.uniq('retention_archived');
  await api.register({ name, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }], retention: { days: 1, archive: true } });
  const keptName = api.uniq('retention_kept');
  await api.register({ name: keptName, tasks: [{ name: `${keptName}_task`, taskReferenceName: 'x' }] });
  const id = await api.start(name, { n: 1 });
  const kept = await api.start(keptName, {});
  for (const w of [id, kept]) expect((await api.call('DELETE', `/api/workflow/${w}?reason=done`)).status).toBe(200);
  await api.waitForStatus(id, 'TERMINATED');
  const dataDir = b.dataDir;
  await b.stop(); // flushes the index

  // Not due yet a few hours later; due two days later (the policy keeps it one day).
  expect(await purgeAhead(dataDir, DAY / 4)).toMatchObject({ purged: 0 });
  expect(await purgeAhead(dataDir, 2 * DAY)).toMatchObject({ purged: 1, archived: 1 });

  b = await startBaton({ BATON_DATA_DIR: dataDir });
  const got = await api.call('GET', `/api/workflow/${id}`);
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ workflowId: id, workflowName: name, status: 'TERMINATED', archived: true, input: { n: 1 } });
  expect(got.body.tasks).toHaveLength(1);
  expect((await api.call('GET', `/api/workflow/${id}?includeTasks=false`)).body.tasks).toEqual([]);
  expect((await api.call('GET', `/api/workflow/${id}/status`)).body).toMatchObject({ workflowId: id, status: 'TERMINATED' });
  // Gone from the search index with the store.
  const hits = await api.call('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId='${id}'`)}`);
  expect(hits.body.totalHits).toBe(0);
  // The one without a policy is kept (the server default keeps forever).
  expect((await api.call('GET', `/api/workflow/${kept}`)).body).not.toHaveProperty('archived');

  for (const [method, path] of [
    ['POST', `/api/workflow/${id}/retry`],
    ['POST', `/api/workflow/${id}/restart`],
    ['PUT', `/api/workflow/${id}/pause`],
    ['PUT', `/api/workflow/${id}/resume`],
    ['DELETE', `/api/workflow/${id}`],
    ['DELETE', `/api/workflow/${id}/remove`],
  ] as const) {
    const r = await api.call(method, path);
    expect({ method, path, status: r.status, body: r.body }).toMatchObject({
      method,
      path,
      status: 409,
      body: { status: 409, code: 'WORKFLOW_ARCHIVED', message: expect.stringContaining('archived') },
    });
  }
  // Still archived and unchanged after the refusals; an id never seen is still a 404.
  expect((await api.call('GET', `/api/workflow/${id}`)).body).toMatchObject({ status: 'TERMINATED', archived: true });
  expect((await api.call('GET', '/api/workflow/no-such-execution')).status).toBe(404);
  expect((await api.call('POST', '/api/workflow/no-such-execution/retry')).status).toBe(404);
});
