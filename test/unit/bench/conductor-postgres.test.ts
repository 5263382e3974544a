import { conductorPostgresProperties } from '../../../bench/processes/conductor-postgres';

describe('conductorPostgresProperties', () => {
  it("puts Conductor's data, queues, index and lock in the run's PostgreSQL with its guide's settings, Elasticsearch off", () => {
    expect(conductorPostgresProperties({ port: 54321, user: 'postgres', database: 'postgres' })).toEqual({
      'conductor.db.type': 'postgres',
      'conductor.queue.type': 'postgres',
      'conductor.indexing.enabled': 'true',
      'conductor.indexing.type': 'postgres',
      'conductor.elasticsearch.version': '0',
      'conductor.app.workflowExecutionLockEnabled': 'true',
      'conductor.workflow-execution-lock.type': 'postgres',
      'conductor.postgres.pollDataFlushInterval': '5000',
      'conductor.postgres.pollDataCacheValidityPeriod': '5000',
      'conductor.postgres.onlyIndexOnStatusChange': 'true',
      'spring.datasource.url': 'jdbc:postgresql://127.0.0.1:54321/postgres',
      'spring.datasource.username': 'postgres',
      'spring.datasource.password': '',
    });
  });
});
