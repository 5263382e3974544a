import { describeOverview } from '../api/overview-suite';
import { describeUpgrade } from '../api/upgrade-suite';
import { apiClient } from '../support/api-client';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Upgrading running executions (a turn of the workflow actor behind real daprd, Cassandra as the store) and the
// overview (Elasticsearch's aggregations over the documents the indexer wrote) on two real replicas.

let cluster: RealCluster;

engineSuite('distributed profile on real engines', missingRealCluster())('upgrade and overview on two real replicas', () => {
  beforeAll(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'] });
  });
  afterAll(() => cluster?.stop());

  describeUpgrade(() => apiClient(() => cluster.nextUrl()));
  describeOverview(() => apiClient(() => cluster.nextUrl()));
});
