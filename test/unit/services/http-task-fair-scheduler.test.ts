import { FairScheduler, type Started } from '../../../src/services/http-task/fair-scheduler';

// The order HTTP calls start in: a host at its cap waits without a slot, hosts are served in turn.

/** A fake transport: calls start when the scheduler says so and end when the test says so. */
function harness(limits = { slots: 4, perHost: 2, queuePerHost: 3 }) {
  const s = new FairScheduler<string>(limits);
  const starts: string[] = [];
  const inFlight: Started<string>[] = [];
  const run = (started: Started<string>[]) => {
    for (const x of started) {
      starts.push(x.item);
      inFlight.push(x);
    }
  };
  return {
    s,
    starts,
    inFlight,
    /** Adds a claimed task, as a poll does; false when the host has no room. */
    offer(host: string, item: string): boolean {
      const started = s.add(host, item);
      if (!started) return false;
      run(started);
      return true;
    },
    /** Ends the call of `item`. */
    end(item: string): void {
      const i = inFlight.findIndex((x) => x.item === item);
      const [x] = inFlight.splice(i, 1);
      run(s.finish(x.host));
    },
  };
}

test("a host at its cap waits without a slot: another host's task starts at once", () => {
  const h = harness();
  for (const n of [1, 2, 3, 4, 5]) expect(h.offer('slow:80', `slow${n}`)).toBe(true);
  expect(h.starts).toEqual(['slow1', 'slow2']);
  expect(h.s.freeSlots()).toBe(2);
  h.offer('fast:80', 'fast1');
  expect(h.starts).toEqual(['slow1', 'slow2', 'fast1']);
});

test("a host's queue is bounded: past it the host has no room, other hosts still do", () => {
  const h = harness();
  for (const n of [1, 2, 3, 4, 5]) expect(h.offer('slow:80', `slow${n}`)).toBe(true);
  expect(h.offer('slow:80', 'slow6')).toBe(false);
  expect(h.offer('fast:80', 'fast1')).toBe(true);
  // A place frees as a call ends: the next waiting task starts and one more may wait.
  h.end('slow1');
  expect(h.starts).toEqual(['slow1', 'slow2', 'fast1', 'slow3']);
  expect(h.offer('slow:80', 'slow6')).toBe(true);
  expect(h.offer('slow:80', 'slow7')).toBe(false);
  expect(h.s.load('slow:80')).toEqual({ running: 2, waiting: 3 });
});

test('with no queue a task starts at once or is refused', () => {
  const h = harness({ slots: 4, perHost: 2, queuePerHost: 0 });
  expect(h.offer('a:80', 'a1')).toBe(true);
  expect(h.offer('a:80', 'a2')).toBe(true);
  expect(h.offer('a:80', 'a3')).toBe(false);
  expect(h.starts).toEqual(['a1', 'a2']);
});

test('freed slots go to the waiting hosts in turn, not to the longest queue', () => {
  const h = harness({ slots: 2, perHost: 1, queuePerHost: 10 });
  for (const n of [1, 2, 3, 4]) h.offer('a:80', `a${n}`);
  for (const n of [1, 2]) h.offer('b:80', `b${n}`);
  h.offer('c:80', 'c1');
  expect(h.starts).toEqual(['a1', 'b1']);
  // a, b, c queued in that order: each gets its turn before a gets another.
  for (const item of ['a1', 'b1', 'a2', 'b2']) h.end(item);
  expect(h.starts).toEqual(['a1', 'b1', 'a2', 'b2', 'c1', 'a3']);
});

test('one host never holds every slot: the last free slot waits for a host with no call in flight', () => {
  const h = harness({ slots: 2, perHost: 2, queuePerHost: 10 });
  h.offer('slow:80', 's1');
  h.offer('slow:80', 's2');
  expect(h.starts).toEqual(['s1']);
  expect(h.s.freeSlots()).toBe(1);
  h.offer('fast:80', 'f1');
  expect(h.starts).toEqual(['s1', 'f1']);
  // The freed slot is again the last one: it stays free for another host; s2 starts once s1 ends.
  h.end('f1');
  expect(h.starts).toEqual(['s1', 'f1']);
  h.end('s1');
  expect(h.starts).toEqual(['s1', 'f1', 's2']);
  // With a slot to spare beside the last one, a host takes its second call.
  const wide = harness({ slots: 3, perHost: 2, queuePerHost: 10 });
  for (const n of [1, 2, 3]) wide.offer('slow:80', `s${n}`);
  expect(wide.starts).toEqual(['s1', 's2']);
});

test('a host at its cap is passed over; its turn comes back when one of its calls ends', () => {
  const h = harness({ slots: 3, perHost: 1, queuePerHost: 5 });
  h.offer('slow:80', 's1');
  h.offer('slow:80', 's2');
  h.offer('slow:80', 's3');
  h.offer('fast:80', 'f1');
  h.offer('fast:80', 'f2');
  expect(h.starts).toEqual(['s1', 'f1']);
  h.end('f1');
  expect(h.starts).toEqual(['s1', 'f1', 'f2']);
  h.end('s1');
  expect(h.starts).toEqual(['s1', 'f1', 'f2', 's2']);
  expect(h.s.freeSlots()).toBe(1);
});

test('drain takes every waiting task out: nothing starts after it', () => {
  const h = harness({ slots: 1, perHost: 1, queuePerHost: 5 });
  h.offer('a:80', 'a1');
  h.offer('a:80', 'a2');
  h.offer('b:80', 'b1');
  expect(h.s.drain().map((x) => x.item)).toEqual(['a2', 'b1']);
  h.end('a1');
  expect(h.starts).toEqual(['a1']);
  expect(h.s.freeSlots()).toBe(1);
});
