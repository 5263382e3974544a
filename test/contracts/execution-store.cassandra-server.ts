import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { StartedTestContainer } from 'testcontainers';
import { type CassandraStoreConfig, cassandraConfigFromEnv } from '../../src/store/cassandra/config';
import { openCassandraStores, type CassandraStores } from '../../src/store/cassandra';

/**
 * Where the Cassandra contract runners find a server: CASSANDRA_CONTACT_POINTS (with CASSANDRA_LOCAL_DC,
 * CASSANDRA_USERNAME, CASSANDRA_PASSWORD), else a testcontainers cassandra:4.1 when a Docker engine is
 * reachable; otherwise the runners skip and say why.
 */
export const configured = cassandraConfigFromEnv(process.env);
const dockerAvailable = Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
export const cassandraRunnable = Boolean(configured) || dockerAvailable;

export function warnIfSkipped(suite: string): void {
  if (!cassandraRunnable) console.warn(`[${suite}: cassandra] skipped: Cassandra not reachable (set CASSANDRA_CONTACT_POINTS) and no Docker engine`);
}

/** A Cassandra for one test file; `config()` gives a fresh keyspace name each call. */
export class CassandraForTests {
  private container: StartedTestContainer | undefined;
  private base: Omit<CassandraStoreConfig, 'keyspace' | 'migrate'> | undefined;

  async start(): Promise<void> {
    if (configured) {
      this.base = configured;
      return;
    }
    const { GenericContainer, Wait } = await import('testcontainers');
    this.container = await new GenericContainer('cassandra:4.1')
      .withEnvironment({ MAX_HEAP_SIZE: '1G', HEAP_NEWSIZE: '256M' })
      .withExposedPorts(9042)
      .withWaitStrategy(Wait.forLogMessage(/Starting listening for CQL clients/))
      .withStartupTimeout(300_000)
      .start();
    this.base = {
      contactPoints: [`${this.container.getHost()}:${this.container.getMappedPort(9042)}`],
      localDataCenter: 'datacenter1',
    };
  }

  config(over: Partial<CassandraStoreConfig> = {}): CassandraStoreConfig {
    if (!this.base) throw new Error('Cassandra not started');
    return {
      ...this.base,
      keyspace: `baton_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
      replication: configured?.replication ?? '1',
      migrate: true,
      ...over,
    };
  }

  async stop(): Promise<void> {
    await this.container?.stop();
  }
}

/**
 * Registers beforeAll/afterAll that start a Cassandra (env or container), open the stores in a fresh
 * keyspace and drop it afterwards; call inside a describe. Read the stores through the getters.
 */
export function useCassandraStores(): { stores(): CassandraStores; keyspace(): string; config(): CassandraStoreConfig } {
  const server = new CassandraForTests();
  let shared: CassandraStores | undefined;
  let keyspace = '';
  beforeAll(async () => {
    await server.start();
    const cfg = server.config();
    keyspace = cfg.keyspace;
    shared = await openCassandraStores(cfg);
  }, 360_000);
  afterAll(async () => {
    await shared?.client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await shared?.close();
    await server.stop();
  }, 120_000);
  return { stores: () => shared!, keyspace: () => keyspace, config: () => server.config() };
}
