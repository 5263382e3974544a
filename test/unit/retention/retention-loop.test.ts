import { RetentionLoop } from '../../../src/retention/retention-loop';
import type { ScanLease } from '../../../src/services/recovery-scan';

/** A lease one holder at a time, like the Redis one. */
class SharedLease {
  holder: string | undefined;
  for(name: string): ScanLease {
    return {
      acquire: async () => {
        if (this.holder === undefined || this.holder === name) this.holder = name;
        return this.holder === name;
      },
      release: async () => {
        if (this.holder === name) this.holder = undefined;
      },
    };
  }
}

const quiet = { warn: () => undefined };
const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

describe('RetentionLoop', () => {
  test('of two replicas only the lease holder runs passes, with its budget; the other takes over once it stops', async () => {
    const lease = new SharedLease();
    const passes: Array<[string, number]> = [];
    const replica = (name: string) =>
      new RetentionLoop({
        purger: { passOnce: async (budget) => (passes.push([name, budget]), { purged: 0, archived: 0, kept: 0, reclaimedPages: 0 }) },
        lease: lease.for(name),
        intervalMs: 1000,
        budget: 250,
        log: quiet,
      });
    const a = replica('a');
    a.start();
    await until(() => passes.length > 0);
    const b = replica('b');
    b.start();
    await new Promise((r) => setTimeout(r, 1200)); // b tried at least once meanwhile
    expect(new Set(passes.map(([n]) => n))).toEqual(new Set(['a']));
    expect(passes.every(([, budget]) => budget === 250)).toBe(true);
    await a.stop(); // releases the lease
    await until(() => passes.some(([n]) => n === 'b'));
    await b.stop();
    expect(lease.holder).toBeUndefined();
  });

  test('a failing pass is logged and the loop goes on to the next interval', async () => {
    let calls = 0;
    const warnings: unknown[] = [];
    const loop = new RetentionLoop({
      purger: {
        passOnce: async () => {
          calls++;
          throw new Error('index unavailable');
        },
      },
      lease: new SharedLease().for('a'),
      intervalMs: 1000,
      budget: 10,
      log: { warn: (o: unknown) => void warnings.push(o) },
    });
    loop.start();
    await until(() => calls >= 2);
    await loop.stop();
    expect(warnings.length).toBeGreaterThanOrEqual(2);
  });
});
