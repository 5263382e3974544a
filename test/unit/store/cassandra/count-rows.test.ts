import type { Client } from 'cassandra-driver';
import { countRowsUpTo } from '../../../../src/store/cassandra/count-rows';

// The bounded count of the Cassandra adapters (no Cassandra here: a client that pages like the driver).

function pagingClient(total: number) {
  const asked: Array<{ fetchSize: number; pageState?: string }> = [];
  const client = {
    execute: async (_q: string, _p: unknown[], o: { fetchSize: number; pageState?: string }) => {
      asked.push({ fetchSize: o.fetchSize, pageState: o.pageState });
      const from = Number(o.pageState ?? 0);
      const to = Math.min(total, from + o.fetchSize);
      return { rows: Array.from({ length: to - from }, () => ({})), pageState: to < total ? String(to) : undefined };
    },
  };
  return { client: client as unknown as Client, asked };
}

test('counts every row over several pages when there are fewer than asked', async () => {
  const { client, asked } = pagingClient(2500);
  expect(await countRowsUpTo(client, 'SELECT name FROM t', {}, 10_000)).toBe(2500);
  expect(asked.map((a) => a.pageState)).toEqual([undefined, '1000', '2000']);
});

test('stops at `atMost`, reading no page past it', async () => {
  const { client, asked } = pagingClient(1_000_000);
  expect(await countRowsUpTo(client, 'SELECT name FROM t', {}, 2500)).toBe(2500);
  expect(asked.map((a) => a.fetchSize)).toEqual([1000, 1000, 500]);
});

test('an empty table counts 0 in one read', async () => {
  const { client, asked } = pagingClient(0);
  expect(await countRowsUpTo(client, 'SELECT name FROM t', {}, 10)).toBe(0);
  expect(asked).toHaveLength(1);
});
