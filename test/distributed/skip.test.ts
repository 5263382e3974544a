import { apiClient } from '../support/api-client';
import { describeSkipAndChains } from '../api/skip-suite';
import { startCluster, type TestCluster } from './cluster';

// The skip suite (test/api/skip-suite.ts) against two replicas of the distributed profile (Dapr sidecar double,
// real Redis, one shared SQLite file), every request going to the next replica in turn: a skip reaches the
// workflow actor wherever it is placed, and its queue removal the queue actor on either replica.

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
}, 120_000);
afterAll(() => cluster?.stop(), 60_000);

describeSkipAndChains(() => apiClient(() => cluster.nextUrl(), { tasksPath: '/api/task' }));
