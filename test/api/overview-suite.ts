import type { ApiClient } from '../support/api-client';
import { eventually } from '../support/baton';
import type { Overview } from '../../src/search/overview';

// GET /api/overview over HTTP: the last hour's aggregates from the search index (SQLite embedded, Elasticsearch
// on the real engines: test/real/distributed-upgrade-overview.test.ts), and its bound.

export function describeOverview(client: () => ApiClient): void {
  const api = (): ApiClient => client();

  test('answers per-minute series of the executions started here, the bucket of now included', async () => {
    const name = api().uniq('overview_flow');
    const taskType = api().uniq('overview_task');
    await api().registerTaskDefs([{ name: taskType, retryCount: 0 }]);
    await api().register({ name, tasks: [{ name: taskType, taskReferenceName: 'work', type: 'SIMPLE' }] });
    const id = await api().start(name);
    await api().complete(await api().pollOne(taskType));
    await api().waitForStatus(id, 'COMPLETED');
    const o = await eventually(async () => {
      const r = await api().call('GET', '/api/overview?limit=20');
      expect(r.status).toBe(200);
      const body = r.body as Overview;
      const s = body.series.find((x) => x.name === name);
      // Workflow and task documents reach the index apart (Elasticsearch: each at its next refresh).
      const waited = body.taskWaits.find((x) => x.taskType === taskType);
      return s && s.completed.reduce((a, b) => a + b) === 1 && waited ? { body, s, waited } : undefined;
    });
    expect(o.body).toMatchObject({ bucketMs: 60_000, buckets: expect.any(Array) });
    expect(o.body.buckets).toHaveLength(60);
    expect(o.s.started.reduce((a, b) => a + b)).toBe(1);
    expect(o.body.slowest.map((x) => x.name)).toContain(name);
    expect(o.waited).toMatchObject({ count: 1 });
  });

  test('a limit outside 1..20 is a 400 with a Conductor-style body', async () => {
    for (const limit of ['0', '21', 'many']) {
      const r = await api().call('GET', `/api/overview?limit=${limit}`);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: 400, message: expect.any(String) });
    }
  });
}
