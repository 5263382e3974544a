import { PageBook } from '../../../src/actors/queue/page-book';
import { chunkByBytes, settlePages } from '../../../src/actors/queue/queue-state';

// The page bookkeeping of a queue partition: pages never exceed capacity, every page but one stays
// at least a quarter full, and a change marks only the pages it touched.

function pagesOf(book: PageBook): Map<number, string[]> {
  return new Map(book.pageNumbers().map((n) => [n, [...book.idsOf(n)!]]));
}

function checkInvariants(book: PageBook, live: Set<string>): void {
  const pages = pagesOf(book);
  const all = [...pages.values()].flat().sort();
  expect(all).toEqual([...live].sort());
  const sizes = [...pages.values()].map((ids) => ids.length);
  expect(sizes.filter((n) => n < Math.floor(book.capacity / 4)).length).toBeLessThanOrEqual(1);
  expect(sizes.filter((n) => n === 0 || n > book.capacity)).toEqual([]);
}

test('new entries fill the open page, then open the next one', () => {
  const book = new PageBook(3);
  for (const id of ['a', 'b', 'c', 'd']) book.add(id);
  expect(pagesOf(book)).toEqual(
    new Map([
      [0, ['a', 'b', 'c']],
      [1, ['d']],
    ]),
  );
  expect(book.owed()).toEqual({ pages: [0, 1], meta: true });
  book.saved([0, 1], true);
  book.add('e');
  expect(book.owed()).toEqual({ pages: [1], meta: false });
});

test('a removal rewrites its page only; an emptied page is deleted from meta', () => {
  const book = new PageBook(4);
  for (const id of ['a', 'b', 'c', 'd', 'e']) book.add(id);
  book.saved([0, 1], true);
  book.remove('b');
  expect(book.owed()).toEqual({ pages: [0], meta: false });
  book.saved([0], false);
  book.remove('e');
  expect(book.owed()).toEqual({ pages: [1], meta: true });
  expect(book.idsOf(1)).toBeUndefined();
});

test('a sparse closed page is folded into the open page', () => {
  const book = new PageBook(8); // quarter: 2
  for (let i = 0; i < 10; i++) book.add(`t${i}`); // page 0: t0..t7, page 1 (open): t8, t9
  book.saved([0, 1], true);
  for (let i = 0; i < 7; i++) book.remove(`t${i}`);
  expect(pagesOf(book)).toEqual(new Map([[1, ['t8', 't9', 't7']]]));
  expect(book.owed()).toEqual({ pages: [0, 1], meta: true });
});

test('a sparse closed page becomes the open page when the open one is too full to take it', () => {
  const book = new PageBook(8);
  for (let i = 0; i < 16; i++) book.add(`t${i}`); // page 0 full, page 1 (open) full too
  book.saved([0, 1], true);
  for (let i = 0; i < 7; i++) book.remove(`t${i}`);
  expect(pagesOf(book).get(0)).toEqual(['t7']);
  expect(book.owed()).toEqual({ pages: [0], meta: false });
  book.add('new');
  expect(book.idsOf(0)).toEqual(new Set(['t7', 'new']));
  expect(book.pageNumbers()).toEqual([0, 1]);
});

test('random pushes and removals keep the invariants', () => {
  let x = 12345;
  const rand = (n: number): number => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
  for (const capacity of [1, 2, 4, 10, 50]) {
    const book = new PageBook(capacity);
    const live = new Set<string>();
    const order: string[] = [];
    let next = 0;
    for (let step = 0; step < 5000; step++) {
      if (live.size === 0 || rand(100) < 55) {
        const id = `t${next++}`;
        book.add(id);
        live.add(id);
        order.push(id);
      } else {
        const at = rand(order.length);
        const id = order[at];
        order[at] = order[order.length - 1];
        order.pop();
        book.remove(id);
        live.delete(id);
      }
      if (step % 97 === 0) checkInvariants(book, live);
    }
    checkInvariants(book, live);
    // Restored from its pages, the book keeps the same pages and can go on.
    const restored = PageBook.restore(capacity, pagesOf(book));
    expect(pagesOf(restored)).toEqual(pagesOf(book));
    expect(restored.owesWrites).toBe(false);
    restored.add('more');
    live.add('more');
    checkInvariants(restored, live);
  }
});

test('restore picks the emptiest page as the open one and numbers new pages past every known one', () => {
  const book = PageBook.restore(
    4,
    new Map([
      [3, ['a', 'b', 'c', 'd']],
      [5, ['e']],
      [9, []],
    ]),
  );
  book.add('f');
  expect(book.idsOf(5)).toEqual(new Set(['e', 'f']));
  book.add('g');
  book.add('h');
  book.add('i');
  expect(book.idsOf(10)).toEqual(new Set(['i']));
});

test('chunkByBytes keeps order and bounds each chunk (an oversize item goes alone)', () => {
  const items = [5, 5, 5, 20, 1, 1, 9].map((bytes, i) => ({ bytes, i }));
  expect(chunkByBytes(items, 10).map((c) => c.map((x) => x.i))).toEqual([[0, 1], [2], [3], [4, 5], [6]]);
  expect(chunkByBytes([], 10)).toEqual([]);
});

test('settlePages orders by seq and keeps each task once', () => {
  const settled = settlePages(
    new Map([
      [
        0,
        [
          ['b', 'w', 0, 0, 5],
          ['a', 'w', 0, 0, 2],
        ] as [string, string, number, number, number][],
      ],
      [
        1,
        [
          ['a', 'w', 0, 0, 2],
          ['c', 'w', 0, 0, 9],
        ] as [string, string, number, number, number][],
      ],
      [2, []],
    ]),
  );
  expect(settled.entries.map((e) => e[0])).toEqual(['a', 'b', 'c']);
  expect(settled.pages).toEqual(
    new Map([
      [0, ['b', 'a']],
      [1, ['c']],
      [2, []],
    ]),
  );
  expect(settled.rewrite.sort()).toEqual([1, 2]);
});
