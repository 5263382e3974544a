import { describeInterface } from '../api/interface-suite';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// The interface suite (test/api/interface-suite.ts) against two replicas of the distributed profile on the real
// engines (daprd, placement, scheduler, Redis, Cassandra, Elasticsearch), calls alternating replicas.

let cluster: RealCluster;

engineSuite('distributed profile on real engines', missingRealCluster())('interface on two real replicas', () => {
  describeInterface(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'] });
    return { url: () => cluster.nextUrl(), stop: () => cluster.stop() };
  });
});
