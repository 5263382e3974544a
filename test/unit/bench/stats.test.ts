import { kbToMb, parseMachineCpuTicks, parseProcStatCpuTicks, parseProcStatus } from '../../../bench/stats/proc';
import { ratesBetween, ratio } from '../../../bench/stats/rates';
import { judgeHeapFloor, judgeRssTrend } from '../../../bench/stats/rss-trend';

describe('ratesBetween', () => {
  it('divides counter growth by the window length in seconds', () => {
    const rates = ratesBetween({ atMs: 1000, values: { tasks: 100, requests: 50 } }, { atMs: 3000, values: { tasks: 3100, requests: 50, extra: 9 } });
    expect(rates).toEqual({ tasks: 1500, requests: 0 });
  });

  it('rejects an empty or reversed window', () => {
    expect(() => ratesBetween({ atMs: 5, values: {} }, { atMs: 5, values: {} })).toThrow(RangeError);
  });
});

describe('ratio', () => {
  it('is value / reference to three decimals', () => {
    expect(ratio(1, 3)).toBe(0.333);
    expect(ratio(4500, 9000)).toBe(0.5);
  });

  it('is null without a usable reference', () => {
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(null, 5)).toBeNull();
    expect(ratio(5, undefined)).toBeNull();
  });
});

describe('/proc parsing', () => {
  it("reads the machine's busy CPU ticks from /proc/stat, idle and iowait left out", () => {
    expect(parseMachineCpuTicks('cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\n')).toEqual({ busy: 160, total: 980 });
    expect(() => parseMachineCpuTicks('intr 1 2 3')).toThrow(/no cpu line/);
  });

  const status = ['Name:\tnode', 'VmPeak:\t 1200000 kB', 'VmHWM:\t  204800 kB', 'VmRSS:\t  102400 kB', 'Threads:\t11'].join('\n');

  it('reads VmRSS and VmHWM in kB', () => {
    expect(parseProcStatus(status)).toEqual({ rssKb: 102400, hwmKb: 204800 });
    expect(kbToMb(102400)).toBe(100);
  });

  it('fails loudly when a field is missing', () => {
    expect(() => parseProcStatus('Name:\tnode\n')).toThrow(/VmRSS/);
  });

  it('sums utime and stime even when the command name has spaces and parentheses', () => {
    const fields = ['S', '1', '2', '3', '0', '-1', '4194560', '100', '0', '0', '0', '250', '70', '0', '0', '20'];
    expect(parseProcStatCpuTicks(`4242 (node (main) x) ${fields.join(' ')}`)).toBe(320);
  });
});

describe('judgeRssTrend', () => {
  const run = (rss: (n: number) => number) => Array.from({ length: 11 }, (_, i) => ({ completedWorkflows: i * 10_000, rssMb: rss(i * 10_000) }));

  it('calls a plateau after warm-up flat', () => {
    const t = judgeRssTrend(run((n) => (n < 50_000 ? 80 + n / 1000 : 130 + ((n / 10_000) % 2))));
    expect(t?.flat).toBe(true);
    expect(t?.baselineMb).toBe(131);
    expect(t?.firstMb).toBe(80);
    expect(t?.maxMb).toBe(131);
  });

  it('calls steady growth hidden by a low last reading (garbage collection) growing', () => {
    const t = judgeRssTrend(run((n) => (n === 100_000 ? 150 : 150 + (n - 50_000) / 500)));
    expect(t?.growthMb).toBe(0);
    expect(t?.flat).toBe(false);
  });

  it('calls steady growth of 1 MB per 1,000 workflows growing', () => {
    const t = judgeRssTrend(run((n) => 100 + n / 1000));
    expect(t?.flat).toBe(false);
    expect(t?.growthMb).toBe(50);
    expect(t?.slopeMbPer10k).toBe(10);
  });

  it('allows 10% of a large baseline', () => {
    expect(judgeRssTrend(run((n) => 500 + (n >= 100_000 ? 40 : 0)))?.flat).toBe(true);
    expect(judgeRssTrend(run((n) => 500 + (n >= 100_000 ? 60 : 0)))?.flat).toBe(false);
    expect(judgeRssTrend(run((n) => 500 + (n >= 50_000 && n < 100_000 ? 60 : 0)))?.flat).toBe(true);
  });

  it('needs at least two samples after the warm-up', () => {
    expect(judgeRssTrend([{ completedWorkflows: 10, rssMb: 50 }])).toBeNull();
  });
});

describe('judgeHeapFloor', () => {
  // One reading per 1,000 workflows; the used heap saws between collections (floor + 0..150 MB).
  const run = (floor: (n: number) => number) =>
    Array.from({ length: 101 }, (_, i) => ({ completedWorkflows: i * 1000, heapUsedMb: floor(i * 1000) + ((i * 37) % 10) * 15 }));

  it('calls a sawtooth over a steady floor flat, whatever the peaks', () => {
    const h = judgeHeapFloor(run(() => 60));
    expect(h).toMatchObject({ firstHalfMb: 60, secondHalfMb: 60, growthMb: 0, flat: true });
  });

  it('calls a floor that rises by 30 MB over the second half growing', () => {
    const h = judgeHeapFloor(run((n) => 60 + (Math.max(0, n - 50_000) / 50_000) * 30));
    expect(h?.flat).toBe(false);
    expect(h?.growthMb).toBeGreaterThan(10);
  });

  it('needs a few readings', () => {
    expect(judgeHeapFloor([{ completedWorkflows: 1, heapUsedMb: 1 }])).toBeNull();
  });
});
