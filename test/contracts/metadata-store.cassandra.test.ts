import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';
import { describeMetadataStoreContract } from './metadata-store.contract';

describeCassandra('cassandra metadata store', () => {
  const c = useCassandraStores();
  describeMetadataStoreContract('cassandra', async () => ({ store: c.stores().metadata, cleanup: async () => undefined }));
});
