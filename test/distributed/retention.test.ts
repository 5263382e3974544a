import { apiClient } from '../support/api-client';
import { eventually } from '../support/baton';
import { purgeAhead } from '../support/purge-ahead';
import { uniqueName } from '../support/names';
import { startCluster, type TestCluster } from './cluster';

// Two replicas: an execution purged into the archive (its definition's retention, a clock two days
// ahead) answers GET from either replica, marked archived, and changes to it are refused with a 409
// whichever replica hosts its actor, even one that still holds the execution in memory.

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

test('archived on a running cluster: read from both replicas, changes refused', async () => {
  const [A, B] = cluster.replicas.map((r) => apiClient(() => r.url));
  const name = uniqueName('dist_retention');
  await A!.register({ name, tasks: [{ name: `${name}_task`, taskReferenceName: 'x' }], retention: { days: 1, archive: true } });
  const id = await A!.start(name, { n: 2 });
  expect((await B!.call('DELETE', `/api/workflow/${id}?reason=done`)).status).toBe(200);
  await A!.waitForStatus(id, 'TERMINATED');
  await eventually(async () => (await A!.call('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId='${id}'`)}`)).body.totalHits === 1);

  expect(await purgeAhead(cluster.dataDir, 2 * 86_400_000)).toMatchObject({ purged: 1, archived: 1 });

  for (const api of [A!, B!]) {
    const got = await api.call('GET', `/api/workflow/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ workflowId: id, status: 'TERMINATED', archived: true, input: { n: 2 } });
    for (const [method, path] of [
      ['POST', `/api/workflow/${id}/retry`],
      ['POST', `/api/workflow/${id}/restart`],
      ['DELETE', `/api/workflow/${id}/remove`],
    ] as const) {
      const r = await api.call(method, path);
      expect({ method, path, status: r.status, code: r.body?.code }).toEqual({ method, path, status: 409, code: 'WORKFLOW_ARCHIVED' });
    }
  }
  expect((await A!.call('GET', `/api/workflow/${id}`)).body).toMatchObject({ status: 'TERMINATED', archived: true });
});
