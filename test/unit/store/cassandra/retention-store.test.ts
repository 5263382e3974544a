import { type Client, types } from 'cassandra-driver';
import { CassandraRetentionStore } from '../../../../src/store/cassandra/retention-store';

// The retention store reads and writes through the shared JSON-rows helper: the keyspace checked once,
// every request prepared, idempotent and at the store's consistency.

type Call = { query: string; params: unknown[]; options: Record<string, unknown> };

function recordingClient(rows: Record<string, unknown>[] = []) {
  const calls: Call[] = [];
  const client = {
    execute: async (query: string, params: unknown[], options: Record<string, unknown>) => {
      calls.push({ query, params, options });
      const rs = rows.map((r) => ({ get: (c: string) => r[c] }));
      return { rows: rs, first: () => rs[0] ?? null, pageState: null };
    },
  };
  return { client: client as unknown as Client, calls };
}

describe('CassandraRetentionStore over JsonRows', () => {
  it('sends every request prepared, idempotent, at the consistency it was given, to its keyspace', async () => {
    const { client, calls } = recordingClient([{ pass_id: 'p1', items_json: '[{"workflowId":"w1"}]' }]);
    const store = new CassandraRetentionStore(client, { keyspace: 'baton_ks', consistency: types.consistencies.one });
    await store.beginPass('p1', [], 5);
    expect(await store.unfinishedPasses()).toEqual([{ passId: 'p1', items: [{ workflowId: 'w1' }] }]);
    await store.finishPass('p1');
    expect(calls).toHaveLength(3);
    for (const c of calls) {
      expect(c.query).toContain('baton_ks.retention_state');
      expect(c.options).toMatchObject({ prepare: true, isIdempotent: true, consistency: types.consistencies.one });
    }
  });

  it('defaults to LOCAL_QUORUM and refuses a keyspace name that is not one', async () => {
    const { client, calls } = recordingClient();
    await new CassandraRetentionStore(client, { keyspace: 'baton_ks' }).archived('w1');
    expect(calls[0]!.options).toMatchObject({ consistency: types.consistencies.localQuorum });
    expect(() => new CassandraRetentionStore(client, { keyspace: 'ks; DROP' })).toThrow();
  });
});
