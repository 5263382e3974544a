import { randomUUID } from 'node:crypto';
import type { IdempotencyKeyStore } from '../../src/store/ports';

/** The definition of an IdempotencyKeyStore: every adapter runs this list. Keys are fresh per test (stores may be shared). */
export interface IdempotencyKeysUnderTest {
  store: IdempotencyKeyStore;
  cleanup(): Promise<void>;
}

const fresh = (prefix: string): string => `${prefix}_${randomUUID().slice(0, 8)}`;

export function describeIdempotencyKeysContract(adapter: string, open: () => Promise<IdempotencyKeysUnderTest>): void {
  describe(`IdempotencyKeyStore contract (${adapter})`, () => {
    let s: IdempotencyKeysUnderTest;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => {
      await s?.cleanup();
    });

    test('the first claim wins; later claims answer the holder and its claim time', async () => {
      const [name, key] = [fresh('wf'), fresh('k')];
      expect(await s.store.claim(name, key, 'w1', 1000)).toEqual({ workflowId: 'w1', claimedAt: 1000 });
      expect(await s.store.claim(name, key, 'w2', 2000)).toEqual({ workflowId: 'w1', claimedAt: 1000 });
      // The holder claiming again is answered as the holder.
      expect(await s.store.claim(name, key, 'w1', 3000)).toEqual({ workflowId: 'w1', claimedAt: 1000 });
    });

    test('keys are scoped to the workflow name', async () => {
      const key = fresh('k');
      const [a, b] = [fresh('wf_a'), fresh('wf_b')];
      expect((await s.store.claim(a, key, 'wa', 1)).workflowId).toBe('wa');
      expect((await s.store.claim(b, key, 'wb', 1)).workflowId).toBe('wb');
    });

    test('concurrent claims of one key agree on one holder', async () => {
      const [name, key] = [fresh('wf'), fresh('k')];
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => s.store.claim(name, key, `w${i}`, 100 + i)));
      const holders = new Set(claims.map((c) => c.workflowId));
      expect(holders.size).toBe(1);
    });

    test('reassign moves the key only from its current holder', async () => {
      const [name, key] = [fresh('wf'), fresh('k')];
      await s.store.claim(name, key, 'old', 1);
      expect(await s.store.reassign(name, key, 'someone-else', 'new', 2)).toBe(false);
      expect(await s.store.reassign(name, key, 'old', 'new', 5)).toBe(true);
      expect(await s.store.claim(name, key, 'x', 9)).toEqual({ workflowId: 'new', claimedAt: 5 });
      // Two racing take-overs from the same holder: one moves it.
      const moved = await Promise.all([s.store.reassign(name, key, 'new', 'a', 6), s.store.reassign(name, key, 'new', 'b', 6)]);
      expect(moved.filter(Boolean)).toHaveLength(1);
    });

    test('release drops the key only for its holder; then it can be claimed again', async () => {
      const [name, key] = [fresh('wf'), fresh('k')];
      await s.store.claim(name, key, 'w1', 1);
      await s.store.release(name, key, 'not-holder');
      expect((await s.store.claim(name, key, 'w2', 2)).workflowId).toBe('w1');
      await s.store.release(name, key, 'w1');
      expect(await s.store.claim(name, key, 'w2', 3)).toEqual({ workflowId: 'w2', claimedAt: 3 });
    });
  });
}
