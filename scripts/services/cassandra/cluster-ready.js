// cassandra-cluster.sh: exits 0 once every node of argv[2] (host:port,host:port,...) answers CQL and, as a
// coordinator, sees every other node up (a read at consistency ALL of a keyspace replicated to every node
// succeeds through each of them); 1 after argv[3] seconds.
'use strict';
const { Client, types } = require('cassandra-driver');

const [points, seconds = '240'] = process.argv.slice(2);
const contactPoints = points.split(',');
const deadline = Date.now() + Number(seconds) * 1000;
const port = Number(contactPoints[0].split(':')[1] || 9042);

async function main() {
  let lastError;
  while (Date.now() < deadline) {
    const client = new Client({ contactPoints, localDataCenter: 'datacenter1', protocolOptions: { port } });
    try {
      await client.connect();
      const rf = contactPoints.length;
      await client.execute(`CREATE KEYSPACE IF NOT EXISTS cluster_ready WITH replication = {'class': 'SimpleStrategy', 'replication_factor': ${rf}}`);
      await client.execute('CREATE TABLE IF NOT EXISTS cluster_ready.probe (k int PRIMARY KEY)');
      const hosts = client.hosts.values();
      if (hosts.length < rf) throw new Error(`the driver knows ${hosts.length} of ${rf} nodes`);
      for (const host of hosts)
        await client.execute('SELECT k FROM cluster_ready.probe WHERE k = 0', [], { host, consistency: types.consistencies.all, prepare: true });
      console.error(`[services:cassandra-cluster] ${rf} nodes answer CQL and each sees the others up`);
      return 0;
    } catch (err) {
      lastError = err;
    } finally {
      await client.shutdown().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.error(`[services:cassandra-cluster] not ready: ${lastError && lastError.message}`);
  return 1;
}

main().then((code) => process.exit(code));
