import { Worker } from 'node:worker_threads';

// Copies the WAL back into the database file from a worker thread with its own connection, so the
// page copying and fsync of checkpoints never run on the event loop (the main connection has
// wal_autocheckpoint off). Measured with `npm run bench -- --quick --only simple3`: about +10% tasks/s.

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
// Checkpoints sync the WAL and the database either way; NORMAL only spares this connection's (absent) commits.
db.pragma('synchronous = NORMAL');
const run = () => {
  try {
    // PASSIVE never takes the writer lock. (TRUNCATE did, and stalled commits on the event loop for ~50 ms.)
    db.pragma('wal_checkpoint(PASSIVE)');
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
  }
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;

  constructor(file: string, intervalMs = 500, onError: (message: string) => void = () => undefined) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, intervalMs, driver: require.resolve('better-sqlite3') } });
    this.worker.on('message', (m: unknown) => {
      if (m && typeof m === 'object' && 'error' in m) onError(String((m as { error: string }).error));
    });
    this.worker.on('error', (e) => onError(e.message));
    this.worker.unref();
  }

  /** Runs a last checkpoint and stops the thread. */
  async stop(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      const finish = (): void => resolve();
      this.worker.once('message', finish);
      this.worker.once('exit', finish);
      setTimeout(finish, 5000).unref();
    });
    this.worker.postMessage('stop');
    await done;
    await this.worker.terminate();
  }
}
