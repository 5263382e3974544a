import type Database from 'better-sqlite3';

export interface StoredReminder {
  actorType: string;
  actorId: string;
  name: string;
  dueAt: number;
}

/**
 * Actor reminders of the local host, kept in the embedded SQLite file so they survive restarts.
 * Changes are coalesced by key and written once a second in one transaction: a reminder set and
 * cleared within that second never touches the disk, and one lost by a crash inside it is
 * re-derived when its actor recovers at start.
 */
export class SqliteReminderStore {
  private readonly s;
  private readonly flushTx: (ops: Array<[StoredReminder, boolean]>) => void;
  private ops = new Map<string, [StoredReminder, boolean]>();
  private timer?: NodeJS.Timeout;
  constructor(
    private readonly db: Database.Database,
    private readonly flushMs = 1000,
  ) {
    db.exec(
      'CREATE TABLE IF NOT EXISTS actor_reminders (actor_type TEXT NOT NULL, actor_id TEXT NOT NULL, name TEXT NOT NULL, due_at INTEGER NOT NULL, PRIMARY KEY (actor_type, actor_id, name))',
    );
    this.s = {
      put: db.prepare(
        'INSERT INTO actor_reminders (actor_type, actor_id, name, due_at) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET due_at = excluded.due_at',
      ),
      del: db.prepare('DELETE FROM actor_reminders WHERE actor_type = ? AND actor_id = ? AND name = ?'),
      all: db.prepare<[], { actor_type: string; actor_id: string; name: string; due_at: number }>(
        'SELECT actor_type, actor_id, name, due_at FROM actor_reminders',
      ),
    };
    this.flushTx = db.transaction((ops: Array<[StoredReminder, boolean]>) => {
      for (const [r, put] of ops) {
        if (put) this.s.put.run(r.actorType, r.actorId, r.name, r.dueAt);
        else this.s.del.run(r.actorType, r.actorId, r.name);
      }
    });
  }
  put(r: StoredReminder): void {
    this.queue(r, true);
  }
  delete(actorType: string, actorId: string, name: string): void {
    this.queue({ actorType, actorId, name, dueAt: 0 }, false);
  }
  private queue(r: StoredReminder, put: boolean): void {
    this.ops.set(`${r.actorType}\u0000${r.actorId}\u0000${r.name}`, [r, put]);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
  }
  /** Writes queued changes now (also called before the database closes). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const ops = [...this.ops.values()];
    this.ops = new Map();
    if (ops.length > 0 && this.db.open) this.flushTx(ops);
  }
  all(): StoredReminder[] {
    return this.s.all.all().map((r) => ({ actorType: r.actor_type, actorId: r.actor_id, name: r.name, dueAt: r.due_at }));
  }
}
