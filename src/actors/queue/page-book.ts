// Which state page holds each entry of a queue partition, and which pages a turn changed.
//
// A partition's entries are kept as fixed-capacity pages (`page:<n>`) plus a `meta` value listing
// the live page numbers, so one push or ack rewrites one page, not the whole backlog. New entries
// go to the one open page. Every other page is kept at least a quarter full (a sparse page is folded
// into the open page, or becomes the open page), so activation reads at most 4·backlog/capacity + 1
// pages however the entries were removed.

export class PageBook {
  private readonly pageOf = new Map<string, number>();
  private readonly pages = new Map<number, Set<string>>();
  private open: number | undefined;
  private next = 0;
  private readonly minFill: number;
  /** Pages changed (or deleted) since they were last written. */
  private readonly dirty = new Set<number>();
  /** The set of live pages changed since `meta` was last written. */
  private metaDirty = false;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`bad page capacity ${capacity}`);
    this.minFill = Math.max(1, Math.floor(capacity / 4));
  }

  /** Rebuilds the book from state read at activation: page number → task ids in it. */
  static restore(capacity: number, pages: Map<number, string[]>): PageBook {
    const book = new PageBook(capacity);
    let fewest: number | undefined;
    for (const [n, ids] of pages) {
      book.next = Math.max(book.next, n + 1);
      if (ids.length === 0) continue;
      book.pages.set(n, new Set(ids));
      for (const id of ids) book.pageOf.set(id, n);
      if (fewest === undefined || ids.length < book.pages.get(fewest)!.size) fewest = n;
    }
    // Every page but one is at least a quarter full, so the emptiest one can be the open page.
    if (fewest !== undefined && book.pages.get(fewest)!.size < capacity) book.open = fewest;
    return book;
  }

  get size(): number {
    return this.pageOf.size;
  }

  has(taskId: string): boolean {
    return this.pageOf.has(taskId);
  }

  /** Files a new entry in the open page (opening one when there is none or it is full). */
  add(taskId: string): void {
    if (this.pageOf.has(taskId)) return this.touch(taskId);
    let page = this.open === undefined ? undefined : this.pages.get(this.open);
    if (!page || page.size >= this.capacity) {
      this.open = this.next++;
      page = new Set();
      this.pages.set(this.open, page);
      this.metaDirty = true;
    }
    page.add(taskId);
    this.pageOf.set(taskId, this.open!);
    this.dirty.add(this.open!);
  }

  /** An entry changed in place (visibility, workflow): its page must be rewritten. */
  touch(taskId: string): void {
    const n = this.pageOf.get(taskId);
    if (n !== undefined) this.dirty.add(n);
  }

  remove(taskId: string): void {
    const n = this.pageOf.get(taskId);
    if (n === undefined) return;
    this.pageOf.delete(taskId);
    const page = this.pages.get(n)!;
    page.delete(taskId);
    this.dirty.add(n);
    if (page.size === 0) {
      this.pages.delete(n);
      if (this.open === n) this.open = undefined;
      this.metaDirty = true;
      return;
    }
    if (n === this.open || page.size >= this.minFill) return;
    const open = this.open === undefined ? undefined : this.pages.get(this.open);
    if (open && open.size + page.size <= this.capacity) {
      for (const id of page) {
        open.add(id);
        this.pageOf.set(id, this.open!);
      }
      this.pages.delete(n);
      this.dirty.add(this.open!);
      this.metaDirty = true;
    } else {
      // The open page is over three quarters full (or absent): it may close, this one takes its place.
      this.open = n;
    }
  }

  /** Task ids of a live page, or undefined once the page is gone (its key must be deleted). */
  idsOf(n: number): Iterable<string> | undefined {
    return this.pages.get(n);
  }

  pageNumbers(): number[] {
    return [...this.pages.keys()].sort((a, b) => a - b);
  }

  /** What a save owes: the changed pages and whether `meta` changed. */
  owed(): { pages: number[]; meta: boolean } {
    return { pages: [...this.dirty].sort((a, b) => a - b), meta: this.metaDirty };
  }

  /** Marks pages (and meta) as written. */
  saved(pages: Iterable<number>, meta: boolean): void {
    for (const n of pages) this.dirty.delete(n);
    if (meta) this.metaDirty = false;
  }

  /** Marks pages to be rewritten (or deleted) and meta to be written at the next save. */
  markDirty(pages: Iterable<number>, meta: boolean): void {
    for (const n of pages) this.dirty.add(n);
    if (meta) this.metaDirty = true;
  }

  get owesWrites(): boolean {
    return this.dirty.size > 0 || this.metaDirty;
  }
}
