import { randomUUID } from 'node:crypto';
import type { SchemaDef } from '../../src/model/schemas';
import type { SchemaStore } from '../../src/store/ports';

/** The definition of a SchemaStore: every adapter runs this list. Names are fresh per test (stores may be shared). */
export interface SchemaStoreUnderTest {
  store: SchemaStore;
  cleanup(): Promise<void>;
}

const fresh = (prefix: string): string => `${prefix}_${randomUUID().slice(0, 8)}`;
const schema = (name: string, version: number, data: Record<string, unknown> = { type: 'object' }): SchemaDef => ({
  name,
  version,
  type: 'JSON',
  data,
  createTime: 1,
  updateTime: 2,
});

export function describeSchemaStoreContract(adapter: string, open: () => Promise<SchemaStoreUnderTest>): void {
  describe(`SchemaStore contract (${adapter})`, () => {
    let s: SchemaStoreUnderTest;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => {
      await s?.cleanup();
    });

    test('a version reads back as written; no version means the highest', async () => {
      const name = fresh('schema');
      await s.store.put(schema(name, 1, { type: 'object', required: ['a'] }));
      await s.store.put(schema(name, 3, { type: 'string' }));
      await s.store.put(schema(name, 2));
      expect(await s.store.get(name, 1)).toEqual(schema(name, 1, { type: 'object', required: ['a'] }));
      expect((await s.store.get(name))?.version).toBe(3);
      expect(await s.store.get(name, 4)).toBeUndefined();
      expect(await s.store.get(fresh('none'))).toBeUndefined();
    });

    test('put replaces a version', async () => {
      const name = fresh('schema');
      await s.store.put(schema(name, 1));
      await s.store.put(schema(name, 1, { type: 'number' }));
      expect((await s.store.get(name, 1))?.data).toEqual({ type: 'number' });
    });

    test('list holds every version of every schema, by name then version', async () => {
      const [a, b] = [fresh('a_schema'), fresh('b_schema')];
      await s.store.put(schema(b, 1));
      await s.store.put(schema(a, 2));
      await s.store.put(schema(a, 1));
      const mine = (await s.store.list()).filter((d) => d.name === a || d.name === b).map((d) => [d.name, d.version]);
      expect(mine).toEqual([
        [a, 1],
        [a, 2],
        [b, 1],
      ]);
    });

    test('delete drops one version or all; answers whether anything was there', async () => {
      const name = fresh('schema');
      await s.store.put(schema(name, 1));
      await s.store.put(schema(name, 2));
      expect(await s.store.delete(name, 2)).toBe(true);
      expect(await s.store.delete(name, 2)).toBe(false);
      expect((await s.store.get(name))?.version).toBe(1);
      expect(await s.store.delete(name)).toBe(true);
      expect(await s.store.get(name)).toBeUndefined();
      expect(await s.store.delete(name)).toBe(false);
    });

    test('count answers how many versions there are, counting no further than asked; a replaced one counts once', async () => {
      const before = await s.store.count(1_000_000);
      const name = fresh('count_schema');
      await s.store.put(schema(name, 1));
      await s.store.put(schema(name, 2));
      await s.store.put(schema(name, 2));
      expect(await s.store.count(1_000_000)).toBe(before + 2);
      expect(await s.store.count(before + 1)).toBe(before + 1);
      await s.store.delete(name, 1);
      expect(await s.store.count(1_000_000)).toBe(before + 1);
      await s.store.delete(name);
      expect(await s.store.count(1_000_000)).toBe(before);
    });
  });
}
