import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';

// The hot worker calls (start, batch poll, update, update-v2) are served ahead of express when
// they come in their plain form; a JSON type express also reads (application/*+json) or a trailing
// slash takes them through express. Both front ends must answer alike.

let b: TestBaton;
const api = apiClient(() => b.url);
const MAX_BODY = 4096;

beforeAll(async () => {
  b = await startBaton({ BATON_MAX_BODY_BYTES: String(MAX_BODY) });
});
afterAll(async () => {
  await b?.stop();
});

const PLAIN = 'application/json';
const VIA_EXPRESS = 'application/vnd.baton+json';
const send = (path: string, raw: string, contentType: string) => api.call('POST', path, undefined, { raw, contentType });
const withoutInstance = (body: any) => ({ ...body, instance: undefined });

async function registerOneTask(): Promise<{ name: string; type: string }> {
  const name = api.uniq('hot');
  const type = api.uniq('hot_t');
  await api.register({
    name,
    tasks: [
      { name: type, taskReferenceName: 'x' },
      { name: type, taskReferenceName: 'y' },
    ],
  });
  return { name, type };
}

/** The first task a poll of this exact form hands out (polled until one comes, bounded). */
const firstPolled = (path: string) => eventually(async () => (await api.call('GET', path)).body[0]);

test('a workflow runs end to end with every call in either form', async () => {
  const { name, type } = await registerOneTask();
  for (const [contentType, suffix] of [
    [PLAIN, ''],
    [VIA_EXPRESS, '/'],
  ] as const) {
    const started = await send(`/api/workflow${suffix}`, JSON.stringify({ name, input: { k: contentType } }), contentType);
    expect(started.status).toBe(200);
    expect(started.contentType).toContain('text/plain');
    const id = started.text;
    const x = await firstPolled(`/api/task/poll/batch/${encodeURIComponent(type)}?count=5&timeout=200&workerid=w-${suffix || 'plain'}`);
    expect(x).toMatchObject({ workflowInstanceId: id, referenceTaskName: 'x', workerId: `w-${suffix || 'plain'}`, status: 'IN_PROGRESS' });
    const v2 = await send(
      `/api/tasks/update-v2${suffix}`,
      JSON.stringify({ workflowInstanceId: id, taskId: x.taskId, status: 'COMPLETED', outputData: { a: 1 } }),
      contentType,
    );
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ workflowInstanceId: id, referenceTaskName: 'y', status: 'IN_PROGRESS' });
    const done = await send(`/api/tasks${suffix}`, JSON.stringify({ workflowInstanceId: id, taskId: v2.body.taskId, status: 'COMPLETED' }), contentType);
    expect(done).toMatchObject({ status: 200, text: v2.body.taskId });
    const wf = await api.waitForStatus(id, 'COMPLETED');
    expect(wf.input).toEqual({ k: contentType });
    const nothing = await send(
      `/api/tasks/update-v2${suffix}`,
      JSON.stringify({ workflowInstanceId: id, taskId: v2.body.taskId, status: 'COMPLETED' }),
      contentType,
    );
    expect(nothing.status).toBe(204);
  }
});

test('update-v2 hands the task it scheduled to the same worker without queuing it, and records the poll', async () => {
  const { name, type } = await registerOneTask();
  const id = (await send('/api/workflow', JSON.stringify({ name }), PLAIN)).text;
  const x = await firstPolled(`/api/task/poll/batch/${encodeURIComponent(type)}?count=1&timeout=200&workerid=first`);
  const v2 = await send('/api/tasks/update-v2', JSON.stringify({ workflowInstanceId: id, taskId: x.taskId, status: 'COMPLETED', workerId: 'eager' }), PLAIN);
  expect(v2.body).toMatchObject({ referenceTaskName: 'y', status: 'IN_PROGRESS', workerId: 'eager', pollCount: 1 });
  // Handed over in the turn that scheduled it: no queue entry was made for another worker to take.
  expect((await api.call('GET', `/api/tasks/queue/sizes?taskType=${encodeURIComponent(type)}`)).body).toEqual({ [type]: 0 });
  const polls = (await api.call('GET', `/api/tasks/queue/polldata?taskType=${encodeURIComponent(type)}`)).body;
  expect(polls).toEqual([expect.objectContaining({ queueName: type, workerId: 'eager' })]);
  expect((await api.call('GET', `/api/tasks/poll/batch/${encodeURIComponent(type)}?count=1&timeout=100`)).body).toEqual([]);
  expect((await api.call('GET', `/api/workflow/${id}`)).body.tasks[1]).toMatchObject({ status: 'IN_PROGRESS', workerId: 'eager' });
});

test('a charset parameter and chunked bodies are read on the hot path', async () => {
  const { name } = await registerOneTask();
  const r = await send('/api/workflow', JSON.stringify({ name }), 'application/json; charset=UTF-8');
  expect(r.status).toBe(200);
  const chunked = await fetch(`${b.url}/api/workflow`, {
    method: 'POST',
    headers: { 'content-type': PLAIN },
    body: new Blob([JSON.stringify({ name })]).stream(),
    duplex: 'half',
  } as RequestInit);
  expect(chunked.status).toBe(200);
  expect(await chunked.text()).toMatch(/^[0-9a-f-]{36}$/);
});

describe('errors are the same from both front ends', () => {
  const both = async (path: string, raw: string) => {
    const hot = await send(path, raw, PLAIN);
    const viaExpress = await send(path, raw, VIA_EXPRESS);
    expect(hot.contentType).toContain('application/json');
    expect(withoutInstance(hot.body)).toEqual(withoutInstance(viaExpress.body));
    expect(hot.status).toBe(viaExpress.status);
    return hot;
  };

  test('malformed JSON is a 400 naming the parse error', async () => {
    for (const path of ['/api/workflow', '/api/tasks', '/api/tasks/update-v2']) {
      const r = await both(path, '{"name": ');
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^Malformed JSON body: /);
    }
  });

  test('a body over BATON_MAX_BODY_BYTES is a 413', async () => {
    const r = await both('/api/tasks', JSON.stringify({ taskId: 'x', outputData: { big: 'x'.repeat(MAX_BODY) } }));
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ status: 413, retryable: false });
  });

  test('an invalid body is a 400 with validationErrors; an empty body reads as {}', async () => {
    const r = await both('/api/tasks', JSON.stringify({ taskId: 'x', status: 'COMPLETED' }));
    expect(r.status).toBe(400);
    expect(r.body.validationErrors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'taskResult.workflowInstanceId' })]));
    const empty = await both('/api/workflow', '');
    expect(empty.status).toBe(400);
    expect(empty.body.validationErrors.length).toBeGreaterThan(0);
  });

  test('an unknown workflow or task is a 404', async () => {
    expect((await both('/api/workflow', JSON.stringify({ name: api.uniq('nope') }))).status).toBe(404);
    const r = await both('/api/tasks', JSON.stringify({ workflowInstanceId: '00000000-0000-0000-0000-000000000000', taskId: 't', status: 'COMPLETED' }));
    expect(r.status).toBe(404);
  });

  test('bad poll parameters are 400s naming the parameter', async () => {
    for (const q of ['count=0', 'count=abc', 'timeout=6000', 'count=1001']) {
      const hot = await api.call('GET', `/api/tasks/poll/batch/anything?${q}`);
      const viaExpress = await api.call('GET', `/api/tasks/poll/batch/anything/?${q}`);
      expect(hot.status).toBe(400);
      expect(withoutInstance(hot.body)).toEqual(withoutInstance(viaExpress.body));
    }
  });

  test('query parameters named like Object.prototype members read as parameters, as express reads them', async () => {
    for (const q of ['constructor=a&count=abc', '__proto__=b&count=abc', 'hasOwnProperty=c&toString=d&count=abc']) {
      const hot = await api.call('GET', `/api/tasks/poll/batch/anything?${q}`);
      const viaExpress = await api.call('GET', `/api/tasks/poll/batch/anything/?${q}`);
      expect([q, hot.status]).toEqual([q, 400]);
      expect(withoutInstance(hot.body)).toEqual(withoutInstance(viaExpress.body));
    }
    const ok = await api.call('GET', '/api/tasks/poll/batch/anything?constructor=a&__proto__=b&count=1&timeout=0');
    const okExpress = await api.call('GET', '/api/tasks/poll/batch/anything/?constructor=a&__proto__=b&count=1&timeout=0');
    expect([ok.status, ok.body]).toEqual([okExpress.status, okExpress.body]);
  });
});
