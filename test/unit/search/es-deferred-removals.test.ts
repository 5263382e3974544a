import { DeferredRemovals } from '../../../src/search/elasticsearch/es-deferred-removals';

/** Removals under a hand-driven clock: the timer fires for real (a few ms), due times come from `clock`. */
function setup(fail: (ids: string[]) => boolean = () => false) {
  let clock = 1000;
  const runs: string[][] = [];
  const errors: string[][] = [];
  const removals = new DeferredRemovals(
    50,
    async (ids) => {
      runs.push(ids);
      if (fail(ids)) throw new Error('down');
    },
    (_e, ids) => errors.push(ids),
    () => clock,
  );
  const advance = (ms: number) => (clock += ms);
  const waitFor = async (n: number) => {
    for (const until = Date.now() + 2000; runs.length < n && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
  };
  return { removals, runs, errors, advance, waitFor };
}

it('runs the ids that fell due together, once each', async () => {
  const s = setup();
  s.removals.add('a');
  s.removals.add('b');
  s.removals.add('a');
  s.advance(50);
  await s.waitFor(1);
  expect(s.runs).toEqual([['a', 'b']]);
  expect(s.removals.pending).toBe(0);
});

it('takes ids at least half the delay old into the run, and leaves younger ones for the next', async () => {
  const s = setup();
  s.removals.add('a');
  s.advance(20);
  s.removals.add('b'); // 30 ms old when the run starts: in
  s.advance(10);
  s.removals.add('c'); // 20 ms old: not yet
  s.advance(20);
  await s.waitFor(1);
  expect(s.runs).toEqual([['a', 'b']]);
  s.advance(30);
  await s.waitFor(2);
  expect(s.runs).toEqual([['a', 'b'], ['c']]);
});

it('puts the ids of a failed run back for another try', async () => {
  let failures = 1;
  const s = setup(() => failures-- > 0);
  s.removals.add('a');
  s.advance(50);
  await s.waitFor(1);
  expect(s.errors).toEqual([['a']]);
  expect(s.removals.pending).toBe(1);
  s.advance(50);
  await s.waitFor(2);
  expect(s.runs).toEqual([['a'], ['a']]);
  expect(s.removals.pending).toBe(0);
});

it('runAll takes every pending id at once, however young', async () => {
  const s = setup();
  s.removals.add('a');
  s.removals.add('b');
  await s.removals.runAll();
  expect(s.runs).toEqual([['a', 'b']]);
  s.removals.stop();
});

it('runs nothing on the timer once stopped; runAll still takes what is pending', async () => {
  const s = setup();
  s.removals.stop();
  s.removals.add('a');
  s.advance(100);
  await new Promise((r) => setTimeout(r, 80));
  expect(s.runs).toEqual([]);
  await s.removals.runAll();
  expect(s.runs).toEqual([['a']]);
});
