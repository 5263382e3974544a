import { randomUUID } from 'node:crypto';
import type { StoredSecret } from '../../src/model/secrets';
import type { SecretStore } from '../../src/store/ports';
import { T0 } from './fixtures';

/** The definition of a SecretStore: every adapter runs this one list. Stores may be shared, so names are fresh. */
export interface SecretStoreUnderTest {
  store: SecretStore;
  cleanup(): Promise<void>;
}

const fresh = (prefix: string): string => `${prefix}_${randomUUID().slice(0, 8)}`;

const secret = (name: string, over: Partial<StoredSecret> = {}): StoredSecret => ({
  name,
  sealed: `v1.fp.iv.tag.${name}`,
  tags: [],
  createTime: T0,
  updateTime: T0,
  ...over,
});

export function describeSecretStoreContract(adapter: string, open: () => Promise<SecretStoreUnderTest>): void {
  describe(`SecretStore contract: ${adapter}`, () => {
    let u: SecretStoreUnderTest;
    beforeAll(async () => {
      u = await open();
    }, 120_000);
    afterAll(async () => {
      await u?.cleanup();
    }, 120_000);

    test('put then get answers the same record; a missing name is undefined', async () => {
      const s = secret(fresh('s'), { tags: [{ key: 'team', value: 'a' }] });
      await u.store.putSecret(s);
      expect(await u.store.getSecret(s.name)).toEqual(s);
      expect(await u.store.getSecret(fresh('none'))).toBeUndefined();
    });

    test('put replaces the record of the same name', async () => {
      const name = fresh('r');
      await u.store.putSecret(secret(name));
      const next = secret(name, { sealed: 'v1.fp.iv.tag.second', updateTime: T0 + 5, tags: [{ key: 'k', value: 'v' }] });
      await u.store.putSecret(next);
      expect(await u.store.getSecret(name)).toEqual(next);
    });

    test('list answers every secret ordered by name', async () => {
      const names = [fresh('list_b'), fresh('list_a'), fresh('list_c')];
      for (const n of names) await u.store.putSecret(secret(n));
      const listed = (await u.store.listSecrets()).map((s) => s.name);
      const ours = listed.filter((n) => names.includes(n));
      expect(ours).toEqual([...names].sort((a, b) => a.localeCompare(b)));
      expect(listed).toEqual([...listed].sort((a, b) => a.localeCompare(b)));
    });

    test('delete reports whether the secret existed, and removes it from get and list', async () => {
      const name = fresh('d');
      await u.store.putSecret(secret(name));
      expect(await u.store.deleteSecret(name)).toBe(true);
      expect(await u.store.deleteSecret(name)).toBe(false);
      expect(await u.store.getSecret(name)).toBeUndefined();
      expect((await u.store.listSecrets()).some((s) => s.name === name)).toBe(false);
    });

    test('count answers how many secrets there are, counting no further than asked; a replaced one counts once', async () => {
      const before = await u.store.countSecrets(1_000_000);
      const names = [fresh('count'), fresh('count')];
      for (const n of names) await u.store.putSecret(secret(n));
      await u.store.putSecret(secret(names[0]!, { updateTime: T0 + 1 }));
      expect(await u.store.countSecrets(1_000_000)).toBe(before + 2);
      expect(await u.store.countSecrets(before + 1)).toBe(before + 1);
      await u.store.deleteSecret(names[0]!);
      expect(await u.store.countSecrets(1_000_000)).toBe(before + 1);
    });
  });
}
