import { PendingDocuments } from '../../../src/services/pending-documents';

// The indexer's coalescing: one waiting document per id, never an older version over a newer one,
// ended documents due at once, open ones held from their first change.

interface Doc {
  id: string;
  execution: string;
  version: number;
  status: string;
}
const doc = (version: number, status = 'SCHEDULED', id = 't1', execution = 'w1'): Doc => ({ id, execution, version, status });
const pending = () => new PendingDocuments<Doc>((d) => d.version);
const docs = (m: Map<string, { doc: Doc }>) => [...m.values()].map((p) => p.doc);

test('a newer version replaces the waiting one; an older one never does', () => {
  const p = pending();
  p.put('t1', doc(1), 0, false);
  p.put('t1', doc(3, 'COMPLETED'), 10, true);
  p.put('t1', doc(2, 'IN_PROGRESS'), 20, false); // late: older than what waits
  expect(p.size).toBe(1);
  expect(docs(p.takeAll())).toEqual([doc(3, 'COMPLETED')]);
});

test('an equal version replaces the waiting one (the later add of the same turn)', () => {
  const p = pending();
  p.put('t1', doc(5, 'SCHEDULED'), 0, false);
  p.put('t1', doc(5, 'IN_PROGRESS'), 1, false);
  expect(docs(p.takeAll())).toEqual([doc(5, 'IN_PROGRESS')]);
});

test('open documents wait the hold from their first change; final ones are due at once', () => {
  const p = pending();
  p.put('t1', doc(1), 1000, false);
  p.put('t1', doc(2, 'IN_PROGRESS'), 1500, false); // a newer version does not restart the hold
  p.put('t2', doc(1, 'COMPLETED', 't2'), 1600, true);
  expect(p.finals).toBe(1);
  expect(p.nextDue(5000)).toBe(0);
  expect(docs(p.takeDue(1700, 5000))).toEqual([doc(1, 'COMPLETED', 't2')]);
  expect(p.finals).toBe(0);
  expect(p.nextDue(5000)).toBe(6000);
  expect(docs(p.takeDue(5999, 5000))).toEqual([]);
  expect(docs(p.takeDue(6000, 5000))).toEqual([doc(2, 'IN_PROGRESS')]);
  expect(p.size).toBe(0);
  expect(p.nextDue(5000)).toBeUndefined();
});

test('a task scheduled, claimed and completed within the hold leaves one document, the completed one', () => {
  const p = pending();
  p.put('t1', doc(1, 'SCHEDULED'), 0, false);
  p.put('t1', doc(2, 'IN_PROGRESS'), 100, false);
  expect(docs(p.takeDue(200, 5000))).toEqual([]);
  p.put('t1', doc(3, 'COMPLETED'), 300, true);
  expect(docs(p.takeDue(400, 5000))).toEqual([doc(3, 'COMPLETED')]);
});

test('what a failed write took goes back under anything newer queued since, and stays due', () => {
  const p = pending();
  p.put('t1', doc(1), 0, false);
  p.put('t2', doc(1, 'SCHEDULED', 't2'), 0, false);
  const taken = p.takeDue(6000, 5000);
  p.put('t1', doc(2, 'COMPLETED'), 6100, true); // newer, while the write failed
  p.putBack(taken);
  expect(docs(p.takeDue(6200, 5000))).toEqual([doc(2, 'COMPLETED'), doc(1, 'SCHEDULED', 't2')]);
});

test('a removal after an upsert: the dropped execution leaves nothing to write, others stay', () => {
  const p = pending();
  p.put('t1', doc(1, 'COMPLETED'), 0, true);
  p.put('t2', doc(1, 'SCHEDULED', 't2', 'w2'), 0, false);
  p.drop((d) => d.execution === 'w1');
  expect(p.finals).toBe(0);
  expect(docs(p.takeAll())).toEqual([doc(1, 'SCHEDULED', 't2', 'w2')]);
});
