import { conductorPostgresProperties } from '../../../bench/processes/conductor-postgres';

describe('conductorPostgresProperties', () => {
  it("puts Conductor's data, queues and index in the run's PostgreSQL and keeps Elasticsearch off", () => {
    expect(conductorPostgresProperties({ port: 54321, user: 'postgres', database: 'postgres' })).toEqual({
      'conductor.db.type': 'postgres',
      'conductor.queue.type': 'postgres',
      'conductor.indexing.enabled': 'true',
      'conductor.indexing.type': 'postgres',
      'conductor.elasticsearch.version': '0',
      'spring.datasource.url': 'jdbc:postgresql://127.0.0.1:54321/postgres',
      'spring.datasource.username': 'postgres',
      'spring.datasource.password': '',
    });
  });
});
