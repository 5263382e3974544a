import { ExecutionWaiter } from '../../../src/services/execution-waiter';

// The waiter behind execute, signal/sync and test runs: woken by commits, bounded by a deadline.

describe('ExecutionWaiter', () => {
  test('a change of a watched execution starts the next check without waiting for the poll', async () => {
    const waiter = new ExecutionWaiter(60_000);
    let state = 0;
    const outcome = waiter.until(async () => (state > 0 ? { done: true, value: state } : { done: false, watch: ['w1'] }), Date.now() + 60_000);
    await new Promise((r) => setImmediate(r));
    state = 5;
    waiter.changed('w2'); // not watched: no check
    waiter.changed('w1');
    await expect(outcome).resolves.toEqual({ value: 5, timedOut: false });
  });

  test('a change made while the check ran is not missed', async () => {
    const waiter = new ExecutionWaiter(60_000);
    let checks = 0;
    const outcome = await waiter.until(async () => {
      checks += 1;
      if (checks === 1) {
        waiter.changed('w1'); // e.g. the check itself applied a mocked result
        return { done: false, watch: ['w1'] };
      }
      return { done: true, value: 'second' };
    }, Date.now() + 60_000);
    expect(outcome).toEqual({ value: 'second', timedOut: false });
  });

  test('without changes it polls, and at the deadline it reports a timeout', async () => {
    const waiter = new ExecutionWaiter(5);
    let checks = 0;
    const outcome = await waiter.until(async () => {
      checks += 1;
      return { done: false, watch: ['w1'] };
    }, Date.now() + 100);
    expect(outcome).toEqual({ value: undefined, timedOut: true });
    expect(checks).toBeGreaterThan(1);
  });

  test('an aborted wait ends early', async () => {
    const waiter = new ExecutionWaiter(60_000);
    const ac = new AbortController();
    const outcome = waiter.until(async () => ({ done: false, watch: ['w1'] }), Date.now() + 60_000, ac.signal);
    await new Promise((r) => setImmediate(r));
    ac.abort();
    await expect(outcome).resolves.toEqual({ value: undefined, timedOut: true });
  });
});
