import { Worker } from 'node:worker_threads';
import { z } from 'zod';

// Copies the WAL back into the database file from a worker thread with its own connection, so the
// page copying and fsync of checkpoints never run on the event loop (the main connection has
// wal_autocheckpoint off). Measured with `npm run bench -- --quick --only simple3`: about +10% tasks/s.
//
// A PASSIVE checkpoint lets the writer reset the WAL only if no commit lands while it copies; under a
// writer that never pauses (a purge, a busy server) that moment never comes and the WAL only grows
// (1.5 GB after purging 70,000 executions). So once the WAL is over its limit (RESTART), and whenever
// asked (`truncate`: TRUNCATE), the worker copies with PASSIVE until the tail is small and then checkpoints
// in a mode that takes the writer lock, holding it only while it copies that tail. Every checkpoint of
// this process runs here: a second checkpointer on another connection would answer busy while this one
// copies (SQLite does not wait for the checkpoint lock).

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
const BUSY_MS = 5000;
db.pragma('busy_timeout = ' + BUSY_MS);
// Checkpoints sync the WAL and the database either way; NORMAL only spares this connection's (absent) commits.
db.pragma('synchronous = NORMAL');
const pageSize = db.pragma('page_size', { simple: true });
const checkpoint = (mode) => db.pragma('wal_checkpoint(' + mode + ')')[0];
// TRUNCATE gives the WAL's space back; RESTART only has the writer start it over (cheaper: the truncation,
// ~100 ms for 64 MiB here, would run under the writer lock), and journal_size_limit trims what is past 64 MiB.
const copyAll = (mode) => {
  let r = checkpoint('PASSIVE');
  for (let i = 0, copied = -1; i < workerData.catchUpRounds && r.log - r.checkpointed > workerData.tailFrames && r.checkpointed !== copied; i++) {
    copied = r.checkpointed;
    r = checkpoint('PASSIVE');
  }
  // A reader holding an old snapshot (or a writer faster than the copy) keeps the tail long: copying it under the writer lock would stall commits.
  if (r.busy || r.log - r.checkpointed > workerData.tailFrames) return { busy: 1, log: r.log, checkpointed: r.checkpointed };
  // Short: RESTART and TRUNCATE hold the writer lock while they wait for readers; commits on the event loop wait with them.
  db.pragma('busy_timeout = ' + workerData.truncateBusyMs);
  try {
    return checkpoint(mode);
  } finally {
    db.pragma('busy_timeout = ' + BUSY_MS);
  }
};
let retryAt = 0;
const run = () => {
  try {
    // PASSIVE never takes the writer lock. (TRUNCATE on every run stalled commits on the event loop for ~50 ms.)
    const r = checkpoint('PASSIVE');
    if (r.log * pageSize <= workerData.limitBytes || Date.now() < retryAt) return;
    // A long reader answers busy every time, each after holding the writer lock up to truncateBusyMs: not every interval.
    retryAt = copyAll('RESTART').busy ? Date.now() + workerData.intervalMs * 20 : 0;
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message || e) });
  }
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'stop') {
    clearInterval(timer);
    run();
    db.close();
    parentPort.postMessage('stopped');
  } else if (m && typeof m.truncate === 'number') {
    try {
      parentPort.postMessage({ truncated: m.truncate, result: copyAll('TRUNCATE') });
    } catch (e) {
      parentPort.postMessage({ truncated: m.truncate, error: String(e && e.message || e) });
    }
  }
});
`;

/** SQLite's answer to `PRAGMA wal_checkpoint`: busy 1 when it could not finish, WAL frames, frames copied. */
export const WalCheckpointSchema = z.object({ busy: z.number().int(), log: z.number().int(), checkpointed: z.number().int() });
export type WalCheckpoint = z.infer<typeof WalCheckpointSchema>;

const TruncateAnswerSchema = z.object({ truncated: z.number(), result: WalCheckpointSchema.optional(), error: z.string().optional() });

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /** Over this many WAL bytes the periodic checkpoint has the WAL started over (the main connection's journal_size_limit). */
  limitBytes: number;
  onError?: (message: string) => void;
}

/** Frames left after the PASSIVE rounds that RESTART or TRUNCATE may copy under the writer lock (4 MiB of 4 KiB pages). */
const TAIL_FRAMES = 1024;
const CATCH_UP_ROUNDS = 8;
const TRUNCATE_BUSY_MS = 100;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(r: WalCheckpoint): void; reject(e: Error): void }>();
  private nextId = 0;
  private stopped = false;

  constructor(file: string, opts: WalCheckpointerOptions) {
    const onError = opts.onError ?? (() => undefined);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        intervalMs: opts.intervalMs ?? 500,
        limitBytes: opts.limitBytes,
        tailFrames: TAIL_FRAMES,
        catchUpRounds: CATCH_UP_ROUNDS,
        truncateBusyMs: TRUNCATE_BUSY_MS,
        driver: require.resolve('better-sqlite3'),
      },
    });
    this.worker.on('message', (m: unknown) => {
      const answer = TruncateAnswerSchema.safeParse(m);
      if (answer.success) return this.settle(answer.data);
      if (m && typeof m === 'object' && 'error' in m) onError(String((m as { error: string }).error));
    });
    this.worker.on('error', (e) => {
      onError(e.message);
      this.failWaiting(e);
    });
    this.worker.on('exit', () => this.failWaiting(new Error('the WAL checkpointer has stopped')));
    this.worker.unref();
  }

  /**
   * Checkpoints the whole WAL and truncates it to zero bytes. Answers SQLite's result: busy 1 when a reader
   * (or a writer that never pauses) kept it from finishing; the WAL then stays until a later checkpoint.
   */
  truncate(): Promise<WalCheckpoint> {
    if (this.stopped) return Promise.reject(new Error('the WAL checkpointer has stopped'));
    const id = this.nextId++;
    return new Promise<WalCheckpoint>((resolve, reject) => {
      // The thread is unref'd; awaited, it must keep the process alive (a CLI would otherwise exit mid-await).
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ truncate: id });
    });
  }

  /** Runs a last checkpoint and stops the thread. */
  async stop(): Promise<void> {
    this.stopped = true;
    const done = new Promise<void>((resolve) => {
      const finish = (m?: unknown): void => {
        if (m === undefined || m === 'stopped' || typeof m === 'number') resolve();
      };
      this.worker.on('message', finish);
      this.worker.once('exit', finish);
      setTimeout(finish, 5000).unref();
    });
    this.worker.postMessage('stop');
    await done;
    await this.worker.terminate();
  }

  private settle(a: z.infer<typeof TruncateAnswerSchema>): void {
    const w = this.waiting.get(a.truncated);
    if (!w) return;
    this.waiting.delete(a.truncated);
    if (this.waiting.size === 0) this.worker.unref();
    if (a.result) w.resolve(a.result);
    else w.reject(new Error(a.error ?? 'WAL checkpoint failed'));
  }

  private failWaiting(e: Error): void {
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
    this.worker.unref();
  }
}
