import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { call, eventually, useBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// Batches by query over real HTTP: the search's matches are acted on once each, progress and per-execution failures
// are reported, bad requests change nothing, and starting one needs the permission of its action.

const MAX_MATCHES = 5;

/** Starts `n` executions of a fresh one-task workflow; answers its name and their ids once the index has them all. */
async function executions(url: string, n: number): Promise<{ name: string; ids: string[] }> {
  const name = uniqueName('batch_wf');
  const def = { name, version: 1, tasks: [{ name: uniqueName('batch_task'), taskReferenceName: 't', type: 'SIMPLE' }] };
  expect((await call(url, 'POST', '/api/metadata/workflow', def)).status).toBe(200);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await call(url, 'POST', '/api/workflow', { name, input: { i } })).text);
  await eventually(async () => (await call(url, 'GET', `/api/workflow/search?query=${encodeURIComponent(`workflowType = '${name}'`)}`)).body.totalHits === n);
  return { name, ids };
}

const finished = (url: string, id: string) =>
  eventually(async () => {
    const r = await call(url, 'GET', `/api/batch/${id}`);
    return r.body.state !== 'RUNNING' && r.body;
  });

describe('batches by query', () => {
  const b = useBaton({ BATON_BATCH_INTERVAL_MS: '20', BATON_BATCH_BUDGET: '2', BATON_BATCH_MAX_MATCHES: String(MAX_MATCHES) });

  test('terminates every match once, reports progress, then lists the batch', async () => {
    const url = b.url();
    const { name, ids } = await executions(url, 4);
    const started = await call(url, 'POST', '/api/batch', { query: `workflowType = '${name}' AND status = 'RUNNING'`, action: 'terminate', reason: 'cleanup' });
    expect(started.status).toBe(200);
    expect(started.body.matched).toBe(4);
    const done = await finished(url, started.body.id);
    expect(done).toMatchObject({ state: 'COMPLETED', matched: 4, done: 4, failed: 0, failures: [], action: 'terminate' });
    for (const id of ids) {
      const w = (await call(url, 'GET', `/api/workflow/${id}?includeTasks=false`)).body;
      expect([w.status, w.reasonForIncompletion]).toEqual(['TERMINATED', 'cleanup']);
    }
    const listed = (await call(url, 'GET', '/api/batch')).body as Array<{ id: string }>;
    expect(listed.map((x) => x.id)).toContain(started.body.id);
  });

  test('an execution the action cannot apply to is a failure with its reason; the others go on', async () => {
    const url = b.url();
    const { name, ids } = await executions(url, 3);
    expect((await call(url, 'DELETE', `/api/workflow/${ids[1]}?reason=ended`)).status).toBeLessThan(300);
    await eventually(
      async () =>
        (await call(url, 'GET', `/api/workflow/search?query=${encodeURIComponent(`workflowType = '${name}' AND status = 'TERMINATED'`)}`)).body.totalHits === 1,
    );
    const started = await call(url, 'POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'pause' });
    expect(started.body.matched).toBe(3);
    const done = await finished(url, started.body.id);
    expect(done).toMatchObject({ state: 'COMPLETED', done: 2, failed: 1 });
    expect(done.failures).toHaveLength(1);
    expect(done.failures[0].workflowId).toBe(ids[1]);
    expect(done.failures[0].reason).toMatch(/\S/);
    for (const id of [ids[0], ids[2]]) expect((await call(url, 'GET', `/api/workflow/${id}?includeTasks=false`)).body.status).toBe('PAUSED');
  });

  test('remove deletes every match, search entries included', async () => {
    const url = b.url();
    const { name, ids } = await executions(url, 2);
    const started = await call(url, 'POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'remove' });
    expect(await finished(url, started.body.id)).toMatchObject({ state: 'COMPLETED', done: 2, failed: 0 });
    for (const id of ids) expect((await call(url, 'GET', `/api/workflow/${id}`)).status).toBe(404);
    const query = encodeURIComponent(`workflowType = '${name}'`);
    await eventually(async () => (await call(url, 'GET', `/api/workflow/search?query=${query}`)).body.totalHits === 0);
  });

  test('bad requests are 4xx with an error body and start nothing', async () => {
    const url = b.url();
    const before = (await call(url, 'GET', '/api/batch')).body.length;
    const { name } = await executions(url, MAX_MATCHES + 1);
    for (const body of [
      { query: '', action: 'explode' },
      { action: 'terminate', extra: 1 },
      { query: "status = 'X' AND (", action: 'terminate' },
      'terminate',
    ]) {
      const r = await call(url, 'POST', '/api/batch', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: 400, message: expect.any(String) });
    }
    const over = await call(url, 'POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'terminate' });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain(`${MAX_MATCHES + 1}`);
    expect((await call(url, 'GET', '/api/batch')).body.length).toBe(before);
    expect((await call(url, 'GET', '/api/batch/no-such-batch')).status).toBe(404);
    expect((await call(url, 'POST', '/api/batch/no-such-batch/cancel')).status).toBe(404);
  });

  test('a finished batch cannot be cancelled (409); a batch matching nothing is complete at once', async () => {
    const url = b.url();
    const started = await call(url, 'POST', '/api/batch', { query: `workflowType = '${uniqueName('none')}'`, action: 'retry' });
    expect(started.body).toMatchObject({ matched: 0 });
    expect((await call(url, 'GET', `/api/batch/${started.body.id}`)).body.state).toBe('COMPLETED');
    expect((await call(url, 'POST', `/api/batch/${started.body.id}/cancel`)).status).toBe(409);
  });
});

describe('batches: limits of running batches, cancel', () => {
  // An interval longer than the test: batches stay RUNNING.
  const b = useBaton({ BATON_BATCH_INTERVAL_MS: '600000', BATON_BATCH_MAX_OPEN: '1' });

  test('one running batch more than BATON_BATCH_MAX_OPEN is a 429; a cancel is recorded', async () => {
    const url = b.url();
    const { name } = await executions(url, 2);
    const first = await call(url, 'POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'terminate' });
    expect(first.status).toBe(200);
    const second = await call(url, 'POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'terminate' });
    expect(second.status).toBe(429);
    expect((await call(url, 'GET', '/api/batch')).body).toHaveLength(1);
    const cancelled = await call(url, 'POST', `/api/batch/${first.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect((await call(url, 'GET', `/api/batch/${first.body.id}`)).body).toMatchObject({ cancelRequested: true, done: 0 });
  });
});

describe('batches: permissions', () => {
  let a: AuthBaton;
  let admin: string;
  beforeAll(async () => {
    a = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
    admin = await tokenFor(a.port, ADMIN_KEY);
  });
  afterAll(async () => a?.stop());

  const appWith = async (role: string): Promise<string> => {
    const app = await raw(a.port, 'POST', '/api/applications', { token: admin, body: { name: uniqueName('app') } });
    expect((await raw(a.port, 'POST', `/api/applications/${app.body.id}/roles/${role}`, { token: admin })).status).toBe(200);
    const key = await raw(a.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
    return tokenFor(a.port, { keyId: key.body.id, keySecret: key.body.secret });
  };

  test('a reader lists batches but cannot start or cancel one; a workflow manager can', async () => {
    const reader = await appWith('READ_ONLY');
    const manager = await appWith('WORKFLOW_MANAGER');
    const body = { query: `workflowType = '${uniqueName('none')}'`, action: 'terminate' };
    expect((await raw(a.port, 'POST', '/api/batch', { token: reader, body })).status).toBe(403);
    expect((await raw(a.port, 'GET', '/api/batch', { token: reader })).status).toBe(200);
    const started = await raw(a.port, 'POST', '/api/batch', { token: manager, body });
    expect(started.status).toBe(200);
    expect((await raw(a.port, 'POST', `/api/batch/${started.body.id}/cancel`, { token: reader })).status).toBe(403);
    expect((await raw(a.port, 'GET', `/api/batch/${started.body.id}`, { token: reader })).status).toBe(200);
  });
});
