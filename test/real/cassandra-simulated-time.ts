import { Client, policies } from 'cassandra-driver';
import { CassandraExecutionStore, migrate } from '../../src/store/cassandra';
import type { CassandraStoreConfig } from '../../src/store/cassandra/config';

// Real-Cassandra tests of the open-execution indexes move time forward by minutes and days. The
// store reads the simulated clock, and the driver stamps writes with it too, so deletes timestamped
// relative to a read (generation drops) order against other writes as they would in real time.
// Lightweight transactions are stamped by the server's own clock: a test that removes executions
// (a plain delete) keeps the simulated clock at or ahead of real time.

/** Simulated time: the store's clock and the write timestamps of the client. */
export class SimulatedClock extends policies.timestampGeneration.MonotonicTimestampGenerator {
  constructor(public nowMs: number) {
    super(1000, 1000);
  }
  override getDate(): number {
    return this.nowMs;
  }
}

/** A client stamping writes with `clock`, the keyspace of `cfg` migrated, and a store on the clock. */
export async function storeOnClock(cfg: CassandraStoreConfig, clock: SimulatedClock) {
  const client = new Client({ contactPoints: cfg.contactPoints, localDataCenter: cfg.localDataCenter, policies: { timestampGeneration: clock } });
  await client.connect();
  await migrate(client, { keyspace: cfg.keyspace, replication: cfg.replication });
  const open = () => new CassandraExecutionStore(client, { keyspace: cfg.keyspace, now: () => clock.nowMs });
  return {
    client,
    store: open(),
    /** Another process's store: nothing remembered. */
    open,
    async close() {
      await client.execute(`DROP KEYSPACE IF EXISTS ${cfg.keyspace}`);
      await client.shutdown();
    },
  };
}
