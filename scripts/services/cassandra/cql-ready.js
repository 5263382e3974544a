// cassandra.sh start: exits 0 once the node at argv[2] (host:port) answers a real CQL query, 1 after argv[3] seconds.
'use strict';
const { Client } = require('cassandra-driver');

const [contactPoint, seconds = '120'] = process.argv.slice(2);
const deadline = Date.now() + Number(seconds) * 1000;

async function main() {
  let lastError;
  while (Date.now() < deadline) {
    const client = new Client({ contactPoints: [contactPoint], localDataCenter: 'datacenter1' });
    try {
      const rs = await client.execute('SELECT release_version FROM system.local');
      console.error(`[services:cassandra] CQL answers: release ${rs.first().get('release_version')}`);
      return 0;
    } catch (err) {
      lastError = err;
    } finally {
      await client.shutdown().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.error(`[services:cassandra] no CQL answer: ${lastError && lastError.message}`);
  return 1;
}

main().then((code) => process.exit(code));
