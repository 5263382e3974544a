import { call, useBaton } from '../support/baton';

// Each refusal answers its own stable code from the error catalogue, with the same message as before,
// so a client can act on the code instead of parsing the text.

const b = useBaton();

async function refused(method: string, path: string, body?: unknown) {
  const r = await call(b.url(), method, path, body);
  return { status: r.status, code: r.body?.code, message: r.body?.message };
}

describe('named error codes', () => {
  test('batches', async () => {
    expect(await refused('GET', '/api/batch/nope')).toEqual({ status: 404, code: 'BATCH_NOT_FOUND', message: 'No such batch: nope' });
    expect(await refused('POST', '/api/batch/nope/cancel')).toMatchObject({ status: 404, code: 'BATCH_NOT_FOUND' });
  });

  test('secrets', async () => {
    expect(await refused('GET', '/api/secrets/nope_secret')).toEqual({
      status: 404,
      code: 'SECRET_NOT_FOUND',
      message: 'No such secret found by key: nope_secret',
    });
    expect(await refused('PUT', '/api/secrets/bad%20name', 'v')).toMatchObject({ status: 400, code: 'SECRET_NAME_INVALID' });
  });

  test('schedules', async () => {
    expect(await refused('GET', '/api/scheduler/schedules/nope')).toEqual({ status: 404, code: 'SCHEDULE_NOT_FOUND', message: "Schedule 'nope' not found" });
    expect(await refused('GET', '/api/scheduler/nextFewSchedules')).toMatchObject({ status: 400, code: 'CRON_EXPRESSION_REQUIRED' });
    expect(await refused('GET', '/api/scheduler/nextFewSchedules?cronExpression=nope')).toMatchObject({ status: 400, code: 'CRON_EXPRESSION_INVALID' });
    expect(await refused('GET', '/api/scheduler/schedules/tags')).toMatchObject({ status: 400, code: 'SCHEDULE_TAG_REQUIRED' });
  });
});
