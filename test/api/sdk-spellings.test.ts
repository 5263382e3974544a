import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// What the Python SDK and the Java client send where a JSON client would send something else:
// booleans spelled the way Spring binds them, and a task log line as a bare text body.

const baton = useBaton();
const api = apiClient(baton.url);

async function oneTask(prefix: string): Promise<{ name: string; type: string; id: string }> {
  const name = api.uniq(prefix);
  const type = api.uniq(`${prefix}_t`);
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'x' }] });
  return { name, type, id: await api.start(name, {}, { correlationId: `${name}_corr` }) };
}

describe('boolean query parameters take the spellings Spring binds', () => {
  test('includeClosed=True (Python) includes closed executions, includeClosed=NO leaves them out', async () => {
    const { name, type, id } = await oneTask('bool_corr');
    await api.complete(await api.pollOne(type));
    await api.waitForStatus(id, 'COMPLETED');
    for (const [spelling, expected] of [
      ['True', [id]],
      ['on', [id]],
      [' 1 ', [id]],
      ['yes', [id]],
      ['False', []],
      ['NO', []],
      ['0', []],
      ['off', []],
    ] as const) {
      const r = await api.call('GET', `/api/workflow/${name}/correlated/${name}_corr?includeClosed=${encodeURIComponent(spelling)}`);
      expect([spelling, r.status, r.body.map((w: { workflowId: string }) => w.workflowId)]).toEqual([spelling, 200, expected]);
    }
  });

  test('archiveWorkflow=False (Python) removes the execution', async () => {
    const { id } = await oneTask('bool_remove');
    expect((await api.call('DELETE', `/api/workflow/${id}/remove?archiveWorkflow=False`)).status).toBe(200);
    expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(404);
  });

  test('a word Spring does not bind is a 400 naming the parameter, and changes nothing', async () => {
    const { id } = await oneTask('bool_bad');
    const r = await api.call('DELETE', `/api/workflow/${id}/remove?archiveWorkflow=maybe`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('archiveWorkflow');
    expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(200);
  });
});

describe('POST /api/tasks/{taskId}/log', () => {
  test('takes the line as the body: bare text under any content type, a JSON string unwrapped', async () => {
    const { type } = await oneTask('log_text');
    const task = await api.pollOne(type);
    const path = `/api/tasks/${task.taskId}/log`;
    expect((await api.call('POST', path, undefined, { raw: 'from python', contentType: 'application/json' })).status).toBe(200);
    expect((await api.call('POST', path, undefined, { raw: 'from java', contentType: 'text/plain' })).status).toBe(200);
    expect((await api.call('POST', path, 'from js')).status).toBe(200);
    expect((await api.call('POST', path, undefined, { raw: '{"k": 1}', contentType: 'application/json' })).status).toBe(200);
    const logs = await api.call('GET', path);
    expect(logs.body.map((l: { log: string }) => l.log)).toEqual(['from python', 'from java', 'from js', '{"k": 1}']);
  });

  test('no body is a 400 and stores nothing; an unknown task is a 404', async () => {
    const { type } = await oneTask('log_empty');
    const task = await api.pollOne(type);
    const r = await api.call('POST', `/api/tasks/${task.taskId}/log`, undefined, { raw: '', contentType: 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('Missing request body');
    expect((await api.call('GET', `/api/tasks/${task.taskId}/log`)).status).toBe(204);
    expect((await api.call('POST', '/api/tasks/no-such-task/log', undefined, { raw: 'x', contentType: 'text/plain' })).status).toBe(404);
  });
});
