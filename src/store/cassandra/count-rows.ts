import type { Client, QueryOptions } from 'cassandra-driver';

const PAGE = 1000;

/**
 * Rows `query` answers (a select of key columns only), counting no further than `atMost`: a table scan
 * that stops there, so its cost is bounded by the cap it serves, not by how much is stored. Cassandra's
 * own COUNT(*) would read every row of the table.
 */
export async function countRowsUpTo(client: Client, query: string, options: QueryOptions, atMost: number): Promise<number> {
  let n = 0;
  let pageState: string | undefined;
  while (n < atMost) {
    const rs = await client.execute(query, [], { ...options, fetchSize: Math.min(PAGE, atMost - n), pageState });
    n += rs.rows.length;
    pageState = rs.pageState ?? undefined;
    if (!pageState) break;
  }
  return Math.min(n, atMost);
}
