import IORedis from 'ioredis';

/** Requests the stores themselves counted for one run's keyspace, indices and Redis, at one instant. */
export interface StoreCounts {
  /** Cassandra coordinator reads + writes + range scans on the run's keyspace (system_views.coordinator_*_latency). */
  cassandraRequests: number | null;
  /** The same by kind and table (`write executions`), to see which statements a task costs. */
  cassandraByTable: Record<string, number> | null;
  /** Elasticsearch: documents indexed, bulk requests and search queries on the run's indices (_stats). */
  esIndexed: number | null;
  esBulkRequests: number | null;
  esQueries: number | null;
  /** Documents indexed by index, the run's prefix left out. */
  esIndexedByIndex: Record<string, number> | null;
  /** Commands Redis processed (actor state, pub/sub and Baton's own keys share this redis-server); a Lua script counts itself and each command it runs. */
  redisCommands: number | null;
  /** The same by command name (INFO commandstats), to see which of them a task costs. */
  redisByCommand: Record<string, number> | null;
  /** Execution-store commits the replicas made (each is one conditional batch, a lightweight transaction), from their /metrics. */
  cassandraLwt: number | null;
  errors: string[];
}

export type StoreDelta = Omit<StoreCounts, 'errors'>;

export function storeDelta(a: StoreCounts, b: StoreCounts): StoreDelta {
  const d = (x: number | null, y: number | null): number | null => (x === null || y === null ? null : y - x);
  const byCommand = (x: Record<string, number> | null | undefined, y: Record<string, number> | null | undefined): Record<string, number> | null =>
    x == null || y == null
      ? null
      : Object.fromEntries(
          Object.entries(y)
            .map(([k, n]) => [k, n - (x[k] ?? 0)])
            .filter(([, n]) => (n as number) > 0),
        );
  return {
    cassandraRequests: d(a.cassandraRequests, b.cassandraRequests),
    cassandraByTable: byCommand(a.cassandraByTable, b.cassandraByTable),
    esIndexedByIndex: byCommand(a.esIndexedByIndex, b.esIndexedByIndex),
    esIndexed: d(a.esIndexed, b.esIndexed),
    esBulkRequests: d(a.esBulkRequests, b.esBulkRequests),
    esQueries: d(a.esQueries, b.esQueries),
    redisCommands: d(a.redisCommands, b.redisCommands),
    redisByCommand: byCommand(a.redisByCommand, b.redisByCommand),
    cassandraLwt: d(a.cassandraLwt, b.cassandraLwt),
  };
}

/** Calls per command from `INFO commandstats` (pure). */
export function parseCommandStats(info: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1] as string] = Number(m[2]);
  return out;
}

/** The sum of one Prometheus sample over every line whose labels include `labels` (pure; text exposition format). */
export function sumSamples(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) total += Number(m[3]);
  }
  return total;
}

/** Reads the counters the engines keep (not the client's view): Cassandra virtual tables, ES index stats, Redis INFO. */
export class StoreCounters {
  private cassandra: import('cassandra-driver').Client | undefined;
  private readonly redis: IORedis;

  constructor(
    private readonly keyspace: string,
    private readonly indexPrefix: string,
    redisPort: number,
    /** The replicas' base URLs: their /metrics count the execution store's commits. */
    private readonly replicaUrls: string[] = [],
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
    const [cassandra, es, redis, cassandraLwt] = await Promise.all([
      this.cassandraCount().catch((e: unknown) => note('cassandra', e)),
      this.esCounts().catch((e: unknown) => note('elasticsearch', e)),
      this.redisCount().catch((e: unknown) => note('redis', e)),
      this.commitCount().catch((e: unknown) => note('replica metrics', e)),
    ]);
    return {
      cassandraRequests: cassandra?.total ?? null,
      cassandraByTable: cassandra?.byTable ?? null,
      esIndexed: es?.indexed ?? null,
      esIndexedByIndex: es?.byIndex ?? null,
      esBulkRequests: es?.bulk ?? null,
      esQueries: es?.queries ?? null,
      redisCommands: redis?.total ?? null,
      redisByCommand: redis?.byCommand ?? null,
      cassandraLwt,
      errors,
    };
  }

  private async commitCount(): Promise<number | null> {
    if (this.replicaUrls.length === 0) return null;
    const texts = await Promise.all(
      this.replicaUrls.map(async (u) => {
        const res = await fetch(`${u}/metrics`);
        if (!res.ok) throw new Error(`${u}/metrics answered ${res.status}`);
        return res.text();
      }),
    );
    return texts.reduce((n, t) => n + sumSamples(t, 'baton_store_operation_duration_seconds_count', { store: 'execution', operation: 'commit' }), 0);
  }

  private async cassandraCount(): Promise<{ total: number; byTable: Record<string, number> }> {
    if (!this.cassandra) {
      const { Client } = await import('cassandra-driver');
      this.cassandra = new Client({
        contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? '').split(','),
        localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
      });
    }
    let total = 0;
    const byTable: Record<string, number> = {};
    for (const kind of ['read', 'write', 'scan']) {
      const rs: import('cassandra-driver').types.ResultSet = await this.cassandra.execute(
        `SELECT table_name, count FROM system_views.coordinator_${kind}_latency WHERE keyspace_name = ? ALLOW FILTERING`,
        [this.keyspace],
        { prepare: false },
      );
      for (const row of rs.rows as import('cassandra-driver').types.Row[]) {
        const n = Number(row.get('count') ?? 0);
        total += n;
        const key = `${kind} ${String(row.get('table_name'))}`;
        byTable[key] = (byTable[key] ?? 0) + n;
      }
    }
    return { total, byTable };
  }

  private async esCounts(): Promise<{ indexed: number; bulk: number; queries: number; byIndex: Record<string, number> }> {
    const res = await fetch(`${process.env.ELASTICSEARCH_URL}/${this.indexPrefix}*/_stats/indexing,search,bulk`);
    if (!res.ok) throw new Error(`_stats answered ${res.status}`);
    const body = (await res.json()) as {
      _all?: { total?: { indexing?: { index_total?: number }; search?: { query_total?: number }; bulk?: { total_operations?: number } } };
      indices?: Record<string, { total?: { indexing?: { index_total?: number } } }>;
    };
    const total = body._all?.total;
    const byIndex = Object.fromEntries(
      Object.entries(body.indices ?? {}).map(([name, i]) => [name.slice(this.indexPrefix.length).replace(/^[-_]/, ''), i.total?.indexing?.index_total ?? 0]),
    );
    return { indexed: total?.indexing?.index_total ?? 0, bulk: total?.bulk?.total_operations ?? 0, queries: total?.search?.query_total ?? 0, byIndex };
  }

  private async redisCount(): Promise<{ total: number; byCommand: Record<string, number> }> {
    if (this.redis.status === 'wait') await this.redis.connect();
    const [info, commandStats] = await Promise.all([this.redis.info('stats'), this.redis.info('commandstats')]);
    const m = /total_commands_processed:(\d+)/.exec(info);
    if (!m) throw new Error('no total_commands_processed in INFO stats');
    return { total: Number(m[1]), byCommand: parseCommandStats(commandStats) };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.cassandra?.shutdown().catch(() => undefined);
  }
}
