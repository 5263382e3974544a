import type { RunningPostgres } from './postgres-server';

/**
 * Conductor OSS on PostgreSQL as its own Docker configuration for PostgreSQL sets it
 * (docker/server/config/config-postgres.properties upstream): data, queues and the index in
 * PostgreSQL, Elasticsearch off. Left out: its external payload storage in PostgreSQL (the bench's
 * payloads are a few bytes, far below its thresholds), the sample workflow and the Prometheus endpoint.
 */
export function conductorPostgresProperties(pg: Pick<RunningPostgres, 'port' | 'user' | 'database'>): Record<string, string> {
  return {
    'conductor.db.type': 'postgres',
    'conductor.queue.type': 'postgres',
    'conductor.indexing.enabled': 'true',
    'conductor.indexing.type': 'postgres',
    // without it Conductor tries to reach Elasticsearch
    'conductor.elasticsearch.version': '0',
    'spring.datasource.url': `jdbc:postgresql://127.0.0.1:${pg.port}/${pg.database}`,
    'spring.datasource.username': pg.user,
    'spring.datasource.password': '',
  };
}
