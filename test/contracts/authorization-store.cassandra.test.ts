import { describeAuthorizationStoreContract } from './authorization-store.contract';
import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';

describeCassandra('cassandra authorization store', () => {
  const c = useCassandraStores();
  describeAuthorizationStoreContract('cassandra', async () => ({ store: c.stores().authorization, cleanup: async () => undefined }));
});
