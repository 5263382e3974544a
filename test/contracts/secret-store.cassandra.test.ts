import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';
import { describeSecretStoreContract } from './secret-store.contract';

describeCassandra('cassandra secret store', () => {
  const c = useCassandraStores();
  describeSecretStoreContract('cassandra', async () => ({ store: c.stores().secrets, cleanup: async () => undefined }));
});
