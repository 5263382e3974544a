import { LongPollSlots } from '../../../src/limits/long-poll-slots';

// Polls in flight per client (BATON_MAX_LONG_POLLS_PER_CLIENT): pure bookkeeping.

test('a client gets its slots, no more; a returned slot can be taken again', () => {
  const slots = new LongPollSlots(2);
  const a = slots.take('10.0.0.1');
  const b = slots.take('10.0.0.1');
  expect(a && b).toBeTruthy();
  expect(slots.take('10.0.0.1')).toBeUndefined();
  expect(slots.take('10.0.0.2')).toBeDefined(); // another client counts apart
  a!();
  expect(slots.inFlight('10.0.0.1')).toBe(1);
  expect(slots.take('10.0.0.1')).toBeDefined();
});

test('returning a slot twice frees it once; clients without polls leave no entry', () => {
  const slots = new LongPollSlots(1);
  const first = slots.take('c')!;
  first();
  first();
  expect(slots.inFlight('c')).toBe(0);
  expect(slots.clients).toBe(0);
  const second = slots.take('c')!;
  first(); // a stale release must not free the slot held now
  expect(slots.take('c')).toBeUndefined();
  second();
  expect(slots.clients).toBe(0);
});
