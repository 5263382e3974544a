import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';
import { describeScheduleStoreContract } from './schedule-store.contract';

describeCassandra('cassandra schedule store', () => {
  const c = useCassandraStores();
  describeScheduleStoreContract('cassandra', async () => ({ store: c.stores().schedules, cleanup: async () => undefined }));
});
