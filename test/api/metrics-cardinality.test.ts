import { apiClient } from '../support/api-client';
import { call, eventually, useBaton } from '../support/baton';
import { parseExposition, sampleValue, type Sample } from '../support/prometheus-text';

// GET /metrics is open, and every label value is a series kept for the life of the process: names a
// client sends must not add series without bound. Each name label keeps at most
// BATON_METRICS_MAX_LABEL_VALUES values of its own (here 5), given only to names the engine used;
// the rest is counted under "other", so the traffic still shows.

const baton = useBaton({ BATON_METRICS_MAX_LABEL_VALUES: '5' });
const api = apiClient(baton.url);

async function scrape(): Promise<Sample[]> {
  const r = await call(baton.url(), 'GET', '/metrics');
  expect(r.status).toBe(200);
  return parseExposition(r.text);
}

const seriesOf = (s: Sample[], name: string): Sample[] => s.filter((x) => x.name === name);
const total = (s: Sample[], name: string): number => seriesOf(s, name).reduce((a, x) => a + x.value, 0);
const pollRoute = { method: 'GET', route: '/api/tasks/poll/batch/{taskType}', status: '200' };

const pollUnknown = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const r = await call(baton.url(), 'GET', `/api/tasks/poll/batch/unknown_${api.uniq('t')}?count=1&timeout=0`);
    expect(r.status).toBe(200);
  }
};
/** Baton's own samples (the process and Node.js ones vary with the garbage collector). */
const batonSamples = (s: Sample[]): Sample[] => s.filter((x) => x.name.startsWith('baton_'));

test('polling 2,000 unknown task names adds no series per name; the polls still count', async () => {
  // A few first: the poll route, the queue actors and the store have their series before the count.
  await pollUnknown(20);
  const before = await scrape();
  const polls = sampleValue(before, 'baton_http_request_duration_seconds_count', pollRoute)!;
  await pollUnknown(2000);
  const after = await scrape();
  expect(seriesOf(after, 'baton_task_queue_depth')).toHaveLength(seriesOf(before, 'baton_task_queue_depth').length);
  expect(after.some((x) => Object.values(x.labels).some((v) => v.startsWith('unknown_')))).toBe(false);
  // No series per name: what the traffic adds does not grow with the number of names (on main: one per name).
  expect(batonSamples(after).length - batonSamples(before).length).toBeLessThan(50);
  expect(sampleValue(after, 'baton_http_request_duration_seconds_count', pollRoute)).toBe(polls + 2000);
});

test('past the cap, workflow names, task types and queues are counted under "other"', async () => {
  const n = 12;
  const names = Array.from({ length: n }, (_, i) => ({ wf: api.uniq(`card_wf${i}`), type: api.uniq(`card_t${i}`) }));
  const ids: string[] = [];
  for (const { wf, type } of names) {
    await api.register({ name: wf, tasks: [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }] });
    ids.push(await api.start(wf));
  }
  // Scheduled, not yet polled: twelve queues of one entry each, at most five of them by name.
  const queued = await eventually(async () => {
    const s = await scrape();
    return total(s, 'baton_task_queue_depth') === n ? s : undefined;
  });
  expect(seriesOf(queued, 'baton_task_queue_depth').length).toBeLessThanOrEqual(6);
  expect(sampleValue(queued, 'baton_task_queue_depth', { queue: 'other' })).toBeGreaterThanOrEqual(n - 5);
  for (const { type } of names) await api.complete(await api.pollOne(type), { done: true });
  for (const id of ids) await api.waitForStatus(id, 'COMPLETED');

  const s = await scrape();
  for (const family of ['baton_workflow_start_success_total', 'baton_workflow_completed_total', 'baton_task_queue_wait_seconds_count']) {
    expect(seriesOf(s, family).length).toBeLessThanOrEqual(6);
    expect(total(s, family)).toBe(n);
    expect(sampleValue(s, family, { [family.startsWith('baton_task') ? 'task_type' : 'workflow_name']: 'other' })).toBeGreaterThanOrEqual(n - 5);
  }
  expect(seriesOf(s, 'baton_task_execution_seconds_count').length).toBeLessThanOrEqual(6);
  expect(total(s, 'baton_task_execution_seconds_count')).toBe(n);
});
