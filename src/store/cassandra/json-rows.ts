import { type Client, type QueryOptions, types } from 'cassandra-driver';
import { countRowsUpTo } from './count-rows';
import { assertKeyspaceName } from './statements';

const PAGE = 500;

export interface JsonRowsOptions {
  keyspace: string;
  consistency?: types.consistencies;
}

/**
 * Idempotent prepared statements over tables that keep one JSON document per row (secrets, users,
 * groups, grants, the retention journal): the keyspace they name, single reads, paged scans and capped counts.
 */
export class JsonRows {
  readonly keyspace: string;
  private readonly options: QueryOptions;

  constructor(
    private readonly client: Client,
    opts: JsonRowsOptions,
  ) {
    this.keyspace = assertKeyspaceName(opts.keyspace);
    this.options = { prepare: true, consistency: opts.consistency ?? types.consistencies.localQuorum, isIdempotent: true };
  }

  exec(query: string, params: unknown[], pageState?: string) {
    return this.client.execute(query, params, { ...this.options, fetchSize: PAGE, pageState });
  }

  /** The document in `column` of the first row, parsed; undefined when there is none. */
  async one<T>(query: string, params: unknown[], column: string): Promise<T | undefined> {
    const json = (await this.exec(query, params)).first()?.get(column) as string | null | undefined;
    return json ? (JSON.parse(json) as T) : undefined;
  }

  /** The documents in `column` of every row, read page by page. */
  async all<T>(query: string, params: unknown[], column: string): Promise<T[]> {
    const out: T[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.exec(query, params, pageState);
      for (const r of rs.rows) out.push(JSON.parse(r.get(column) as string) as T);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }

  /** Rows `query` (a select of key columns) answers, counting no further than `atMost`. */
  countUpTo(query: string, atMost: number): Promise<number> {
    return countRowsUpTo(this.client, query, this.options, atMost);
  }
}
