// cassandra-cluster.sh start: exits 0 once every node of argv[2] (host:port,host:port,...) answers a CQL query
// and lists the others as peers, 1 after argv[3] seconds.
'use strict';
const { Client } = require('cassandra-driver');

const [points, seconds = '240'] = process.argv.slice(2);
const contactPoints = points.split(',');
const deadline = Date.now() + Number(seconds) * 1000;

async function nodeReady(contactPoint) {
  // One node at a time: the peers it lists must be the others.
  const client = new Client({ contactPoints: [contactPoint], localDataCenter: 'datacenter1', protocolOptions: { port: Number(contactPoint.split(':')[1]) } });
  try {
    const peers = await client.execute('SELECT peer FROM system.peers');
    return peers.rows.length === contactPoints.length - 1;
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

async function main() {
  let lastError;
  while (Date.now() < deadline) {
    try {
      const ready = await Promise.all(contactPoints.map(nodeReady));
      if (ready.every(Boolean)) {
        console.error(`[services:cassandra-cluster] ${contactPoints.length} nodes answer CQL and see each other`);
        return 0;
      }
      lastError = new Error('not every node lists the others as peers yet');
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.error(`[services:cassandra-cluster] not ready: ${lastError && lastError.message}`);
  return 1;
}

main().then((code) => process.exit(code));
