import type { RunningPostgres } from './postgres-server';

/**
 * Conductor OSS on PostgreSQL as Conductor's PostgreSQL guide (docs/documentation/advanced/postgresql.md
 * upstream) sets it up: data, queues, index and the workflow execution lock in PostgreSQL, Elasticsearch
 * off, and the guide's performance settings (poll data written every 5 s and trusted for 5 s, a workflow
 * indexed when its status changes). Left out: its experimental LISTEN/NOTIFY queues, turning task
 * indexing off (Baton indexes tasks), and the PostgreSQL external payload storage of its Docker
 * configuration (the bench's payloads are a few bytes).
 */
export function conductorPostgresProperties(pg: Pick<RunningPostgres, 'port' | 'user' | 'database'>): Record<string, string> {
  return {
    'conductor.db.type': 'postgres',
    'conductor.queue.type': 'postgres',
    'conductor.indexing.enabled': 'true',
    'conductor.indexing.type': 'postgres',
    // without it Conductor tries to reach Elasticsearch
    'conductor.elasticsearch.version': '0',
    // several servers share one database in production, so the lock must be shared too
    'conductor.app.workflowExecutionLockEnabled': 'true',
    'conductor.workflow-execution-lock.type': 'postgres',
    'conductor.postgres.pollDataFlushInterval': '5000',
    'conductor.postgres.pollDataCacheValidityPeriod': '5000',
    'conductor.postgres.onlyIndexOnStatusChange': 'true',
    'spring.datasource.url': `jdbc:postgresql://127.0.0.1:${pg.port}/${pg.database}`,
    'spring.datasource.username': pg.user,
    'spring.datasource.password': '',
  };
}
