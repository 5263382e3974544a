import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';
import { describeRetentionStoreContract } from './retention-store.contract';

describeCassandra('cassandra retention store', () => {
  const c = useCassandraStores();
  describeRetentionStoreContract('cassandra', async () => ({ store: c.stores().retention, cleanup: async () => undefined }));
});
