import { apiClient } from '../support/api-client';
import { call, eventually, startBaton, useBaton } from '../support/baton';
import { ADMIN_KEY, raw, startAuthBaton } from '../support/auth-baton';
import { parseExposition, sampleValue, type Sample } from '../support/prometheus-text';

// GET /metrics of a real embedded server, read after driving workflows through the API.

const baton = useBaton();
const api = apiClient(baton.url);

async function scrape(): Promise<Sample[]> {
  const r = await call(baton.url(), 'GET', '/metrics');
  expect(r.status).toBe(200);
  expect(r.contentType).toContain('text/plain');
  return parseExposition(r.text);
}

/** Scrapes until `check` holds (index writes and queue turns land shortly after the answers). */
const scrapeUntil = (check: (s: Sample[]) => boolean): Promise<Sample[]> =>
  eventually(async () => {
    const s = await scrape();
    return check(s) ? s : undefined;
  });

test('serves the default process metrics in the text format', async () => {
  const s = await scrape();
  expect(sampleValue(s, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(s.some((x) => x.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
});

test('a workflow driven through the API shows in the workflow, task, HTTP, actor, store and index metrics', async () => {
  const name = api.uniq('metrics_wf');
  const type = api.uniq('metrics_t');
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }] });
  const id = await api.start(name);
  // Scheduled, not yet polled: the task's queue holds it.
  await scrapeUntil((s) => sampleValue(s, 'baton_task_queue_depth', { queue: type }) === 1);
  const task = await api.pollOne(type);
  await api.complete(task, { done: true });
  await api.waitForStatus(id, 'COMPLETED');

  const s = await scrapeUntil((x) => x.some((y) => y.name === 'baton_index_operation_duration_seconds_count' && y.value > 0));
  expect(sampleValue(s, 'baton_workflow_start_success_total', { workflow_name: name })).toBe(1);
  expect(sampleValue(s, 'baton_workflow_completed_total', { workflow_name: name })).toBe(1);
  expect(sampleValue(s, 'baton_workflow_execution_seconds_count', { workflow_name: name, status: 'COMPLETED' })).toBe(1);
  expect(sampleValue(s, 'baton_task_queue_wait_seconds_count', { task_type: type })).toBe(1);
  expect(sampleValue(s, 'baton_task_execution_seconds_count', { task_type: type, status: 'COMPLETED' })).toBe(1);
  expect(sampleValue(s, 'baton_task_queue_depth', { queue: type })).toBe(0);
  // Routes by template, whichever front end answered (the hot path here).
  expect(sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'POST', route: '/api/workflow', status: '200' })).toBeGreaterThanOrEqual(1);
  expect(
    sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'GET', route: '/api/tasks/poll/batch/{taskType}', status: '200' }),
  ).toBeGreaterThanOrEqual(1);
  expect(sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'POST', route: '/api/tasks', status: '200' })).toBeGreaterThanOrEqual(1);
  // Express routes carry their template too, never the id.
  expect(
    sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'GET', route: '/api/workflow/{workflowId}', status: '200' }),
  ).toBeGreaterThanOrEqual(1);
  expect(s.some((x) => x.labels.route?.includes(id))).toBe(false);
  expect(sampleValue(s, 'baton_actor_activations_total', { actor_type: 'WorkflowActor' })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(s, 'baton_actor_activations_total', { actor_type: 'QueueActor' })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(s, 'baton_actor_turn_duration_seconds_count', { actor_type: 'WorkflowActor', method: 'claim' })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(s, 'baton_store_operation_duration_seconds_count', { store: 'execution', operation: 'commit' })).toBeGreaterThanOrEqual(3);
  expect(sampleValue(s, 'baton_store_operation_duration_seconds_count', { store: 'metadata', operation: 'putWorkflowDef' })).toBeGreaterThanOrEqual(1);
  expect(s.some((x) => x.name === 'baton_index_operation_duration_seconds_count' && x.value > 0)).toBe(true);
  expect(sampleValue(s, 'baton_outbox_backlog')).toBeGreaterThanOrEqual(0);
});

test('terminated and failed executions count as failures by status', async () => {
  const name = api.uniq('metrics_term');
  const type = api.uniq('metrics_term_t');
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }] });
  const terminated = await api.start(name);
  expect((await api.call('DELETE', `/api/workflow/${terminated}?reason=metrics`)).status).toBe(200);
  const failed = await api.start(name);
  const task = await api.pollOne(type);
  expect(task.workflowInstanceId).toBe(failed);
  await api.complete(task, {}, { status: 'FAILED_WITH_TERMINAL_ERROR', extra: { reasonForIncompletion: 'no' } });
  await api.waitForStatus(failed, 'FAILED');
  const s = await scrape();
  expect(sampleValue(s, 'baton_workflow_start_success_total', { workflow_name: name })).toBe(2);
  expect(sampleValue(s, 'baton_workflow_failure_total', { workflow_name: name, status: 'TERMINATED' })).toBe(1);
  expect(sampleValue(s, 'baton_workflow_failure_total', { workflow_name: name, status: 'FAILED' })).toBe(1);
  expect(sampleValue(s, 'baton_workflow_completed_total', { workflow_name: name })).toBeUndefined();
  expect(sampleValue(s, 'baton_task_execution_seconds_count', { task_type: type, status: 'FAILED_WITH_TERMINAL_ERROR' })).toBe(1);
});

test('an unmatched path is labelled as such, not by its text', async () => {
  expect((await call(baton.url(), 'GET', '/api/no-such-thing/123')).status).toBe(404);
  const s = await scrape();
  expect(sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
  expect(s.some((x) => x.labels.route?.includes('no-such-thing'))).toBe(false);
});

test('with metrics off, /metrics is a 404 with a Conductor-style body', async () => {
  const off = await startBaton({ BATON_METRICS_ENABLED: 'false' });
  try {
    const r = await call(off.url, 'GET', '/metrics');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 404, message: expect.stringContaining('BATON_METRICS_ENABLED') });
  } finally {
    await off.stop();
  }
});

test('with auth on, /metrics stays open like /health (scrapers carry no token)', async () => {
  const auth = await startAuthBaton({
    BATON_AUTH: 'on',
    BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
    BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
    BATON_AUTH_TOKEN_SECRET: 'metrics-test-token-secret-0123456789abcdef',
  });
  try {
    const r = await raw(auth.port, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.text).toContain('baton_http_request_duration_seconds');
    expect((await raw(auth.port, 'GET', '/api/metadata/workflow')).status).toBe(401);
  } finally {
    await auth.stop();
  }
});
