import { describeBatchStoreContract } from './batch-store.contract';
import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';

describeCassandra('cassandra batch store', () => {
  const c = useCassandraStores();
  describeBatchStoreContract('cassandra', async () => ({ store: c.stores().batches, cleanup: async () => undefined }));
});
