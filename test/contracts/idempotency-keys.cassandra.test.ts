import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';
import { describeIdempotencyKeysContract } from './idempotency-keys.contract';
import { describeSchemaStoreContract } from './schema-store.contract';

describeCassandra('cassandra idempotency keys and schemas', () => {
  const c = useCassandraStores();
  describeIdempotencyKeysContract('cassandra', async () => ({ store: c.stores().idempotencyKeys, cleanup: async () => undefined }));
  describeSchemaStoreContract('cassandra', async () => ({ store: c.stores().schemas, cleanup: async () => undefined }));
});
