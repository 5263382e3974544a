import { HashingBusy, HashingSlots } from '../../../src/auth/hashing-slots';

// The bound on scrypt work: never more than `concurrency` derivations at once, at most `maxQueued`
// waiting, and a 429 (retryable, Retry-After) at once beyond that.

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

test('runs at most `concurrency` at a time, hands slots over in order, and refuses past the queue', async () => {
  const slots = new HashingSlots(2, 3);
  const gates = Array.from({ length: 5 }, gate);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const runs = gates.map((g, i) =>
    slots.run(async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      await g.opened;
      running--;
      return i;
    }),
  );
  expect([slots.inFlight, slots.queued]).toEqual([2, 3]);
  const refused = slots.run(async () => 'never');
  await expect(refused).rejects.toBeInstanceOf(HashingBusy);
  await expect(refused).rejects.toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 1 });
  for (const g of gates) g.open();
  expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
  expect(order).toEqual([0, 1, 2, 3, 4]);
  expect(most).toBe(2);
  expect([slots.inFlight, slots.queued]).toEqual([0, 0]);
});

test('a failing derivation gives its slot back', async () => {
  const slots = new HashingSlots(1, 0);
  await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(await slots.run(async () => 'next')).toBe('next');
});
