import IORedis from 'ioredis';

/** Requests the stores themselves counted for one run's keyspace, indices and Redis, at one instant. */
export interface StoreCounts {
  /** Cassandra coordinator reads + writes + range scans on the run's keyspace (system_views.coordinator_*_latency). */
  cassandraRequests: number | null;
  /** Elasticsearch: documents indexed, bulk requests and search queries on the run's indices (_stats). */
  esIndexed: number | null;
  esBulkRequests: number | null;
  esQueries: number | null;
  /** Commands Redis processed (actor state, pub/sub and Baton's own keys share this redis-server). */
  redisCommands: number | null;
  errors: string[];
}

export type StoreDelta = Omit<StoreCounts, 'errors'>;

export function storeDelta(a: StoreCounts, b: StoreCounts): StoreDelta {
  const d = (x: number | null, y: number | null): number | null => (x === null || y === null ? null : y - x);
  return {
    cassandraRequests: d(a.cassandraRequests, b.cassandraRequests),
    esIndexed: d(a.esIndexed, b.esIndexed),
    esBulkRequests: d(a.esBulkRequests, b.esBulkRequests),
    esQueries: d(a.esQueries, b.esQueries),
    redisCommands: d(a.redisCommands, b.redisCommands),
  };
}

/** Reads the counters the engines keep (not the client's view): Cassandra virtual tables, ES index stats, Redis INFO. */
export class StoreCounters {
  private cassandra: import('cassandra-driver').Client | undefined;
  private readonly redis: IORedis;

  constructor(
    private readonly keyspace: string,
    private readonly indexPrefix: string,
    redisPort: number,
  ) {
    this.redis = new IORedis({ host: '127.0.0.1', port: redisPort, lazyConnect: true, maxRetriesPerRequest: 1 });
    this.redis.on('error', () => undefined);
  }

  async read(): Promise<StoreCounts> {
    const errors: string[] = [];
    const note = (what: string, e: unknown): null => {
      errors.push(`${what}: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`);
      return null;
    };
    const [cassandraRequests, es, redisCommands] = await Promise.all([
      this.cassandraCount().catch((e: unknown) => note('cassandra', e)),
      this.esCounts().catch((e: unknown) => note('elasticsearch', e)),
      this.redisCount().catch((e: unknown) => note('redis', e)),
    ]);
    return { cassandraRequests, esIndexed: es?.indexed ?? null, esBulkRequests: es?.bulk ?? null, esQueries: es?.queries ?? null, redisCommands, errors };
  }

  private async cassandraCount(): Promise<number> {
    if (!this.cassandra) {
      const { Client } = await import('cassandra-driver');
      this.cassandra = new Client({ contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? '').split(','), localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1' });
    }
    let total = 0;
    for (const table of ['coordinator_read_latency', 'coordinator_write_latency', 'coordinator_scan_latency']) {
      const rs = await this.cassandra.execute(`SELECT count FROM system_views.${table} WHERE keyspace_name = ? ALLOW FILTERING`, [this.keyspace], { prepare: false });
      for (const row of rs.rows) total += Number(row.get('count') ?? 0);
    }
    return total;
  }

  private async esCounts(): Promise<{ indexed: number; bulk: number; queries: number }> {
    const res = await fetch(`${process.env.ELASTICSEARCH_URL}/${this.indexPrefix}*/_stats/indexing,search,bulk`);
    if (!res.ok) throw new Error(`_stats answered ${res.status}`);
    const total = ((await res.json()) as { _all?: { total?: { indexing?: { index_total?: number }; search?: { query_total?: number }; bulk?: { total_operations?: number } } } })._all?.total;
    return { indexed: total?.indexing?.index_total ?? 0, bulk: total?.bulk?.total_operations ?? 0, queries: total?.search?.query_total ?? 0 };
  }

  private async redisCount(): Promise<number> {
    if (this.redis.status === 'wait') await this.redis.connect();
    const info = await this.redis.info('stats');
    const m = /total_commands_processed:(\d+)/.exec(info);
    if (!m) throw new Error('no total_commands_processed in INFO stats');
    return Number(m[1]);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.cassandra?.shutdown().catch(() => undefined);
  }
}
