import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

// The three-node Cassandra of scripts/services/cassandra-cluster.sh (127.0.0.1-3), and its nodes killed and
// restarted by the fault tests through that script (it knows their pids and data directories).

const SCRIPT = resolve(__dirname, '../../scripts/services/cassandra-cluster.sh');
const run = promisify(execFile);

export const cassandraClusterPoints = (): string | undefined => process.env.CASSANDRA_CLUSTER_CONTACT_POINTS;

export const missingCassandraCluster = (): string | undefined =>
  cassandraClusterPoints() ? undefined : 'CASSANDRA_CLUSTER_CONTACT_POINTS not set (the three nodes are started by `npm run services -- cassandra-cluster`)';

export type NodeNumber = 1 | 2 | 3;

/** kill -9 of one node. */
export async function killNode(n: NodeNumber): Promise<void> {
  await run('bash', [SCRIPT, 'kill-node', String(n)]);
}

/** Starts a killed node on its data and resolves once it answers CQL. */
export async function restartNode(n: NodeNumber): Promise<void> {
  await run('bash', [SCRIPT, 'start-node', String(n)], { timeout: 360_000 });
}

/** Resolves once every node answers CQL and sees every other one up (the state each round starts from). */
export async function clusterWhole(): Promise<void> {
  await run('bash', [SCRIPT, 'ready'], { timeout: 360_000 });
}
