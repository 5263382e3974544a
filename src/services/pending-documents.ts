/**
 * Documents waiting for the indexer's next write, by id: the indexer's coalescing, pure (the caller
 * passes the time). A document of the same id replaces the waiting one only when it is not older
 * (its version is the record's updateTime), so an older summary never goes out over a newer one.
 *
 * A `final` document (an ended task or execution) is due at the next write. Any other waits up to
 * `holdMs` from its first change, so a task that is scheduled, claimed and ended within the window
 * is written once, as ended (Conductor's async indexing goes further: tasks only once the workflow ends).
 */
export interface Pending<T> {
  doc: T;
  version: number;
  /** When the first change still waiting was added: the hold counts from here, later versions do not restart it. */
  since: number;
  final: boolean;
}

export class PendingDocuments<T> {
  private byId = new Map<string, Pending<T>>();
  private finalCount = 0;

  constructor(private readonly versionOf: (doc: T) => number) {}

  get size(): number {
    return this.byId.size;
  }

  /** How many waiting documents are final (due at the next write). */
  get finals(): number {
    return this.finalCount;
  }

  /** Queues `doc`, unless a newer version of it waits already. */
  put(id: string, doc: T, now: number, final: boolean): void {
    this.merge(id, { doc, version: this.versionOf(doc), since: now, final });
  }

  /** Puts back what a failed write took, under anything newer queued since; it stays due. */
  putBack(taken: ReadonlyMap<string, Pending<T>>): void {
    for (const [id, p] of taken) this.merge(id, p);
  }

  /** Takes the documents due at `now` (all of them with `holdMs` 0); the others keep waiting. */
  takeDue(now: number, holdMs: number): Map<string, Pending<T>> {
    const due = new Map<string, Pending<T>>();
    for (const [id, p] of this.byId) {
      if (p.final || p.since + holdMs <= now) {
        due.set(id, p);
        this.remove(id, p);
      }
    }
    return due;
  }

  takeAll(): Map<string, Pending<T>> {
    const all = this.byId;
    this.byId = new Map();
    this.finalCount = 0;
    return all;
  }

  /** Forgets the documents `matches` picks (an execution being removed). */
  drop(matches: (doc: T) => boolean): void {
    for (const [id, p] of this.byId) if (matches(p.doc)) this.remove(id, p);
  }

  /** The earliest time a waiting document is due; undefined when none waits. */
  nextDue(holdMs: number): number | undefined {
    let next: number | undefined;
    for (const p of this.byId.values()) {
      const at = p.final ? 0 : p.since + holdMs;
      if (next === undefined || at < next) next = at;
      if (at === 0) break;
    }
    return next;
  }

  private merge(id: string, incoming: Pending<T>): void {
    const waiting = this.byId.get(id);
    if (!waiting) {
      this.set(id, incoming);
      return;
    }
    const since = Math.min(waiting.since, incoming.since);
    if (incoming.version < waiting.version) {
      waiting.since = since;
      return;
    }
    this.remove(id, waiting);
    this.set(id, { ...incoming, since });
  }

  private set(id: string, p: Pending<T>): void {
    this.byId.set(id, p);
    if (p.final) this.finalCount++;
  }

  private remove(id: string, p: Pending<T>): void {
    this.byId.delete(id);
    if (p.final) this.finalCount--;
  }
}
