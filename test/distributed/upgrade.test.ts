import { apiClient } from '../support/api-client';
import { describeUpgrade } from '../api/upgrade-suite';
import { startCluster, type TestCluster } from './cluster';

// The upgrade suite (test/api/upgrade-suite.ts) against two replicas of the distributed profile (Dapr sidecar
// double, real Redis, one shared SQLite file), requests alternating replicas: the upgrade is a turn of the
// workflow actor wherever it is placed.

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
}, 120_000);
afterAll(() => cluster?.stop(), 60_000);

describeUpgrade(() => apiClient(() => cluster.nextUrl(), { tasksPath: '/api/task' }));
