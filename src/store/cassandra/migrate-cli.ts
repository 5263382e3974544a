import { cassandraConfigFromEnv } from './config';
import { createCassandraClient } from './index';
import { migrate } from './migrate';

// `npm run migrate`: applies pending Cassandra migrations using the CASSANDRA_* environment variables.

async function main(): Promise<void> {
  const cfg = cassandraConfigFromEnv(process.env);
  if (!cfg) throw new Error('CASSANDRA_CONTACT_POINTS is not set');
  const client = createCassandraClient(cfg);
  try {
    await client.connect();
    const applied = await migrate(client, { keyspace: cfg.keyspace, replication: cfg.replication, log: (l) => console.log(l) });
    console.log(applied.length ? `applied ${applied.join(', ')}` : `keyspace ${cfg.keyspace} is up to date`);
  } finally {
    await client.shutdown();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
