import { randomUUID } from 'node:crypto';
import { type CassandraStoreConfig, cassandraConfigFromEnv } from '../../src/store/cassandra/config';
import { openCassandraStores, type CassandraStores } from '../../src/store/cassandra';
import { engineSuite } from '../support/real-engines';

/**
 * Where the Cassandra suites find a server: CASSANDRA_CONTACT_POINTS (with CASSANDRA_LOCAL_DC,
 * CASSANDRA_USERNAME, CASSANDRA_PASSWORD), as `npm run services` records it for `npm run test:real`.
 */
export const configured = cassandraConfigFromEnv(process.env);

/** `describe` when a Cassandra is configured; otherwise skipped with the reason (a failure with CI=true). */
export const describeCassandra = engineSuite('Cassandra', configured ? undefined : 'CASSANDRA_CONTACT_POINTS is not set');

/** A fresh keyspace name per call, so test files (and tests within them) never share state. */
export function testConfig(over: Partial<CassandraStoreConfig> = {}): CassandraStoreConfig {
  if (!configured) throw new Error('CASSANDRA_CONTACT_POINTS is not set');
  return {
    ...configured,
    keyspace: `baton_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    replication: configured.replication ?? '1',
    migrate: true,
    ...over,
  };
}

/**
 * Registers beforeAll/afterAll that open the stores in a fresh keyspace and drop it afterwards; call
 * inside a describe. Read the stores through the getters.
 */
export function useCassandraStores(): { stores(): CassandraStores; keyspace(): string; config(): CassandraStoreConfig } {
  let shared: CassandraStores | undefined;
  let keyspace = '';
  beforeAll(async () => {
    const cfg = testConfig();
    keyspace = cfg.keyspace;
    shared = await openCassandraStores(cfg);
  }, 120_000);
  afterAll(async () => {
    await shared?.client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await shared?.close();
  }, 120_000);
  return { stores: () => shared!, keyspace: () => keyspace, config: () => testConfig() };
}
