import { cassandraRunnable, useCassandraStores, warnIfSkipped } from './execution-store.cassandra-server';
import { describeMetadataStoreContract } from './metadata-store.contract';

warnIfSkipped('metadata-store contract');

(cassandraRunnable ? describe : describe.skip)('cassandra metadata store', () => {
  const c = useCassandraStores();
  describeMetadataStoreContract('cassandra', async () => ({ store: c.stores().metadata, cleanup: async () => undefined }));
});
