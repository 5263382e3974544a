import { RecoveryScan, type RecoveryScanOptions, type ScanLease } from '../../../src/services/recovery-scan';

const quiet = { info: () => undefined, warn: () => undefined };
/** Limits that the tests below other than the lease hand-over never reach. */
const roomy = { callTimeoutMs: 60_000, maxConsecutiveFailures: 1000 };

async function* ids(list: string[]): AsyncIterable<string> {
  for (const id of list) yield id;
}

/** A lease one holder at a time, like the Redis one: taken, renewed by its holder, released. */
class SharedLease {
  holder: string | undefined;
  for(name: string): ScanLease {
    return {
      acquire: async () => {
        if (this.holder === undefined || this.holder === name) {
          this.holder = name;
          return true;
        }
        return false;
      },
      release: async () => {
        if (this.holder === name) this.holder = undefined;
      },
    };
  }
}

describe('RecoveryScan', () => {
  test('one pass recovers every id, a failure does not stop the pass', async () => {
    const seen: string[] = [];
    const scan = new RecoveryScan({
      ids: () => ids(['a', 'b', 'c']),
      recover: async (id) => {
        seen.push(id);
        if (id === 'b') throw new Error('actor busy');
      },
      lease: new SharedLease().for('r1'),
      intervalMs: 60_000,
      ratePerSecond: 1000,
      log: quiet,
      ...roomy,
    });
    expect(await scan.scanOnce()).toBe(2);
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  test('paces recoveries at the configured rate', async () => {
    const at: number[] = [];
    const scan = new RecoveryScan({
      ids: () => ids(Array.from({ length: 11 }, (_, i) => `w${i}`)),
      recover: async () => void at.push(Date.now()),
      lease: new SharedLease().for('r1'),
      intervalMs: 60_000,
      ratePerSecond: 50,
      log: quiet,
      ...roomy,
    });
    await scan.scanOnce();
    // 11 calls at 50/s span at least 10 gaps of 20 ms.
    expect(at[10]! - at[0]!).toBeGreaterThanOrEqual(190);
  });

  test('only the replica holding the lease scans; it is released at stop', async () => {
    const lease = new SharedLease();
    const seen: string[] = [];
    const make = (name: string) =>
      new RecoveryScan({
        ids: () => ids(['x']),
        recover: async () => void seen.push(name),
        lease: lease.for(name),
        intervalMs: 50,
        ratePerSecond: 1000,
        log: quiet,
        ...roomy,
      });
    const [one, two] = [make('r1'), make('r2')];
    one.start();
    two.start();
    const until = Date.now() + 10_000;
    while (seen.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const holder = lease.holder;
    expect(new Set(seen)).toEqual(new Set([holder]));
    await one.stop();
    await two.stop();
    expect(lease.holder).toBeUndefined();
  });

  test('stop does not wait for a recover call that hangs: the call is abandoned, the lease released', async () => {
    const lease = new SharedLease();
    let called!: () => void;
    const inFlight = new Promise<void>((r) => (called = r));
    const scan = new RecoveryScan({
      ids: () => ids(['stuck', 'never']),
      recover: (id) => {
        expect(id).toBe('stuck');
        called();
        return new Promise<void>(() => undefined); // an actor call that never answers
      },
      lease: lease.for('r1'),
      intervalMs: 50,
      ratePerSecond: 1000,
      log: quiet,
      ...roomy,
    });
    scan.start();
    await inFlight;
    await scan.stop();
    expect(lease.holder).toBeUndefined();
  });

  test('a stop that lands while the lease is being taken does not then sit out the interval', async () => {
    let taking!: () => void;
    const inAcquire = new Promise<void>((r) => (taking = r));
    let grant!: (held: boolean) => void;
    const scan = new RecoveryScan({
      ids: () => ids([]),
      recover: async () => undefined,
      lease: {
        acquire: () => {
          taking();
          return new Promise<boolean>((r) => (grant = r));
        },
        release: async () => undefined,
      },
      intervalMs: 3_600_000,
      ratePerSecond: 1000,
      log: quiet,
      ...roomy,
    });
    scan.start();
    await inAcquire;
    const stopped = scan.stop();
    grant(true); // the scan finds nothing, then reaches its sleep with the signal already aborted
    await stopped;
  });
});

describe('RecoveryScan on a replica whose actor calls fail', () => {
  test('recover calls failing in a row give the lease up and end the pass', async () => {
    const lease = new SharedLease();
    const seen: string[] = [];
    const scan = new RecoveryScan({
      ids: () => ids(Array.from({ length: 10 }, (_, i) => `w${i}`)),
      recover: async (id) => {
        seen.push(id);
        throw new Error('sidecar holds actor calls');
      },
      lease: lease.for('r1'),
      intervalMs: 60_000,
      ratePerSecond: 1000,
      callTimeoutMs: 60_000,
      maxConsecutiveFailures: 3,
      log: quiet,
    });
    await lease.for('r1').acquire(120_000);
    expect(await scan.scanOnce()).toBe(0);
    expect(seen).toEqual(['w0', 'w1', 'w2']);
    expect(lease.holder).toBeUndefined();
  });

  test('a call that does not answer within its limit counts as failed (and is abandoned)', async () => {
    const lease = new SharedLease();
    const seen: string[] = [];
    const scan = new RecoveryScan({
      ids: () => ids(['a', 'b', 'c', 'd']),
      recover: (id) => {
        seen.push(id);
        return new Promise<void>(() => undefined); // an actor call daprd holds
      },
      lease: lease.for('r1'),
      intervalMs: 60_000,
      ratePerSecond: 1000,
      callTimeoutMs: 20,
      maxConsecutiveFailures: 2,
      log: quiet,
    });
    await lease.for('r1').acquire(120_000);
    expect(await scan.scanOnce()).toBe(0);
    expect(seen).toEqual(['a', 'b']);
    expect(lease.holder).toBeUndefined();
  });

  test('failures broken by a success never give the lease up', async () => {
    const lease = new SharedLease();
    const scan = new RecoveryScan({
      ids: () => ids(['bad1', 'bad2', 'ok1', 'bad3', 'bad4', 'ok2']),
      recover: async (id) => {
        if (id.startsWith('bad')) throw new Error('this execution is broken');
      },
      lease: lease.for('r1'),
      intervalMs: 60_000,
      ratePerSecond: 1000,
      callTimeoutMs: 60_000,
      maxConsecutiveFailures: 3,
      log: quiet,
    });
    await lease.for('r1').acquire(120_000);
    expect(await scan.scanOnce()).toBe(2);
    expect(lease.holder).toBe('r1');
  });

  test('the wedged holder gives the lease up and a healthy replica takes the scan over', async () => {
    const lease = new SharedLease();
    const recoveredBy: string[] = [];
    const make = (name: string, wedged: boolean) =>
      new RecoveryScan({
        ids: () => ids(['x', 'y', 'z']),
        recover: async () => {
          if (wedged) throw new Error('sidecar holds actor calls');
          recoveredBy.push(name);
        },
        lease: lease.for(name),
        intervalMs: 50,
        ratePerSecond: 1000,
        callTimeoutMs: 60_000,
        maxConsecutiveFailures: 2,
        log: quiet,
      });
    const wedged = make('wedged', true);
    await lease.for('wedged').acquire(100); // it holds the lease first
    wedged.start();
    const healthy = make('healthy', false);
    healthy.start();
    const until = Date.now() + 10_000;
    while (recoveredBy.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(recoveredBy.slice(0, 3)).toEqual(['healthy', 'healthy', 'healthy']);
    await wedged.stop();
    await healthy.stop();
  });
});

describe('RecoveryScan when a replica dies', () => {
  /** A scan whose periodic pass is an hour away and whose ticks come every 20 ms; `o` sets the rest. */
  const hourly = (o: Pick<RecoveryScanOptions, 'ids' | 'recover'> & Partial<RecoveryScanOptions>) =>
    new RecoveryScan({ lease: new SharedLease().for('r1'), intervalMs: 3_600_000, tickMs: 20, ratePerSecond: 1000, log: quiet, ...roomy, ...o });

  const until = async (cond: () => boolean): Promise<void> => {
    const end = Date.now() + 10_000;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(cond()).toBe(true);
  };

  /** A roster whose departures the test announces. */
  const roster = () => {
    const gone: string[] = [];
    const beats: number[] = [];
    return {
      gone,
      beats,
      beat: async (ttlMs: number) => void beats.push(ttlMs),
      departed: async () => gone.splice(0),
    };
  };

  test('a replica that stops marking itself alive sets a pass off at once, not at the next interval', async () => {
    const passes: string[][] = [];
    let current: string[] = [];
    const r = roster();
    const scan = hourly({
      ids: async function* () {
        current = [];
        passes.push(current);
        yield* ['x', 'y'];
      },
      recover: async (id) => void current.push(id),
      roster: r,
    });
    scan.start();
    await until(() => passes.length === 1 && current.length === 2); // taking the lease: one pass
    await new Promise((res) => setTimeout(res, 100)); // ticks, and no pass before the hour is up
    expect(passes).toHaveLength(1);
    r.gone.push('replica-b/1234');
    await until(() => passes.length === 2 && current.length === 2);
    await scan.stop();
    expect(r.beats.every((ttl) => ttl === 60)).toBe(true); // marked alive for three ticks
  });

  test('joining marks the replica alive at once, for three ticks, before any tick of its own', async () => {
    const r = roster();
    const scan = new RecoveryScan({
      lease: new SharedLease().for('r1'),
      intervalMs: 3_600_000,
      tickMs: 5_000, // the first tick waits up to this long
      ratePerSecond: 1000,
      log: quiet,
      ...roomy,
      ids: () => ids([]),
      recover: async () => undefined,
      roster: r,
    });
    await scan.join();
    expect(r.beats).toEqual([15_000]);
  });

  test('a replica taking the lease over from one that died passes at once', async () => {
    const lease = new SharedLease();
    const recoveredBy: string[] = [];
    const make = (name: string) =>
      hourly({
        ids: () => ids(['x']),
        recover: async () => void recoveredBy.push(name),
        lease: lease.for(name),
      });
    lease.holder = 'dead'; // held by a replica that died and never renews it
    const survivor = make('survivor');
    survivor.start();
    await new Promise((res) => setTimeout(res, 100));
    expect(recoveredBy).toEqual([]);
    lease.holder = undefined; // its lease ran out
    await until(() => recoveredBy.length === 1);
    expect(recoveredBy).toEqual(['survivor']);
    await survivor.stop();
  });

  test('a recover call a sidecar holds does not hold the pass up: the others run beside it', async () => {
    let lastDone!: () => void;
    const last = new Promise<void>((r) => (lastDone = r));
    const scan = new RecoveryScan({
      ids: () => ids(['held', 'a', 'b', 'c']),
      // 'held' answers only after 'c' was recovered: one call at a time would wait it out and fail it.
      recover: async (id) => (id === 'held' ? last : id === 'c' ? lastDone() : undefined),
      lease: new SharedLease().for('r1'),
      intervalMs: 60_000,
      ratePerSecond: 1000,
      concurrency: 2,
      callTimeoutMs: 60_000,
      maxConsecutiveFailures: 1000,
      log: quiet,
    });
    expect(await scan.scanOnce()).toBe(4);
  });

  test('a pass held up by a call that does not answer never holds up the lease: it is renewed every tick', async () => {
    let renewals = 0;
    let entered!: () => void;
    const inPass = new Promise<void>((r) => (entered = r));
    const r = roster();
    const scan = hourly({
      ids: () => ids(['held']),
      recover: () => {
        entered();
        return new Promise<void>(() => undefined);
      },
      lease: {
        acquire: async () => {
          renewals++;
          return true;
        },
        release: async () => undefined,
      },
      roster: r,
    });
    scan.start();
    await inPass;
    const before = renewals;
    const beatsBefore = r.beats.length;
    await until(() => renewals >= before + 3 && r.beats.length >= beatsBefore + 3);
    await scan.stop();
  });

  test('an execution whose recover call failed is asked once more at the next tick, not an interval later', async () => {
    const seen: string[] = [];
    let failures = 0;
    const scan = hourly({
      ids: () => ids(['flaky', 'fine']),
      recover: async (id) => {
        seen.push(id);
        if (id === 'flaky' && failures++ === 0) throw new Error('its replica just died');
      },
    });
    scan.start();
    await until(() => seen.length === 3);
    await new Promise((res) => setTimeout(res, 100));
    await scan.stop();
    expect(seen).toEqual(['flaky', 'fine', 'flaky']);
  });
});
