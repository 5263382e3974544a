import type { Logger } from 'pino';
import type { Task, WorkflowRecord } from '../model/execution';
import { isTerminalTask, isTerminalWorkflow } from '../model/statuses';
import type { SearchIndex } from '../search/ports';
import { PendingDocuments, type Pending } from './pending-documents';

export interface IndexerOptions {
  /** Interval of the regular batch write (BATON_INDEX_FLUSH_MS). */
  delayMs?: number;
  /** How long the document of an open task or execution may wait for a newer version (BATON_INDEX_OPEN_HOLD_MS); 0: none. */
  holdMs?: number;
  now?: () => number;
}

/**
 * Feeds the search index from committed turns: coalesces by id (the newest version wins, see
 * PendingDocuments) and writes in batches, one write per batch, not per turn. Documents of ended tasks
 * and executions go at the next batch; those of open ones may wait `holdMs` so that one write carries
 * several changes (a task scheduled, claimed and completed within the window is written once).
 */
export class Indexer {
  private readonly workflows = new PendingDocuments<WorkflowRecord>((w) => w.updateTime);
  private readonly tasks = new PendingDocuments<Task>((t) => t.updateTime);
  private timer?: NodeJS.Timeout;
  /** When the armed timer fires (epoch ms). */
  private timerAt = 0;
  /** A batch is being written: later documents wait (coalescing) instead of queueing copies. */
  private running = false;
  private waiters: Array<{ resolve(): void; reject(e: unknown): void }> = [];
  /** The batch being written, if any (ends when drain() returns). */
  private draining?: Promise<void>;
  /** Executions being removed: their documents are not taken any more (counted: removals may overlap). */
  private readonly removing = new Map<string, number>();
  /** Set by flush(): the next batch takes every waiting document, held or not. */
  private everything = false;
  private readonly delayMs: number;
  private readonly holdMs: number;
  private readonly now: () => number;

  constructor(
    private readonly index: SearchIndex,
    private readonly log: Logger,
    options: IndexerOptions = {},
  ) {
    this.delayMs = options.delayMs ?? 200;
    this.holdMs = options.holdMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  /** `ended`: the execution is terminal, so every document of this turn is final (written at the next batch). */
  add(workflow: WorkflowRecord | undefined, tasks: Iterable<Task>, ended = false): void {
    const now = this.now();
    let final = false;
    if (workflow && !this.removing.has(workflow.workflowId)) {
      const f = ended || isTerminalWorkflow(workflow.status);
      this.workflows.put(workflow.workflowId, workflow, now, f);
      final ||= f;
    }
    for (const t of tasks) {
      if (this.removing.has(t.workflowInstanceId)) continue;
      const f = ended || isTerminalTask(t.status);
      this.tasks.put(t.taskId, t, now, f);
      final ||= f;
    }
    if (this.running) return; // the batch re-arms when it ends
    const at = now + (final || this.holdMs === 0 ? this.delayMs : Math.max(this.delayMs, this.holdMs));
    if (!this.timer || this.timerAt > at) this.arm(at);
  }

  /**
   * Removes an execution from the search index for good. Its documents still waiting here are dropped,
   * and the index's delete runs only once a batch being written has ended: otherwise that batch, or a
   * later flush of what waited here, wrote the record (input included) back after the delete, and it
   * stayed there across restarts.
   */
  async remove(workflowId: string): Promise<void> {
    this.removing.set(workflowId, (this.removing.get(workflowId) ?? 0) + 1);
    try {
      this.drop(workflowId);
      await this.draining?.catch(() => undefined);
      this.drop(workflowId); // a failed batch puts its documents back for a retry
      await this.index.removeWorkflow(workflowId);
    } finally {
      const left = (this.removing.get(workflowId) ?? 1) - 1;
      if (left > 0) this.removing.set(workflowId, left);
      else this.removing.delete(workflowId);
    }
  }

  private drop(workflowId: string): void {
    this.workflows.drop((w) => w.workflowId === workflowId);
    this.tasks.drop((t) => t.workflowInstanceId === workflowId);
  }

  /** The regular flush at `at`: no waiter of its own, so a failed write (index down) rejects only callers that asked. */
  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.kick();
      },
      Math.max(0, at - this.now()),
    );
    this.timer.unref();
  }

  /** After a batch: the next one when the first waiting document is due, at least `delayMs` on. */
  private rearm(): void {
    const next = Math.min(this.workflows.nextDue(this.holdMs) ?? Infinity, this.tasks.nextDue(this.holdMs) ?? Infinity);
    if (next === Infinity) return;
    const at = Math.max(next, this.now() + this.delayMs);
    if (!this.timer || this.timerAt > at) this.arm(at);
  }

  private kick(): void {
    if (this.running) this.urgent = true;
    else this.startDrain();
  }

  private startDrain(): void {
    const draining = this.drain();
    this.draining = draining;
    void draining.finally(() => {
      if (this.draining === draining) this.draining = undefined;
    });
  }

  /**
   * Resolves once every final document added so far (an ended task or execution) is in the index, at
   * the next regular batch. Documents of open ones held for the window are not waited for.
   */
  settled(): Promise<void> {
    if (!this.running && !this.dueWaiting()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  /** Writes everything added so far, held documents included; resolves when it is in the index. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.everything = true;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.kick();
    return done;
  }

  /** Documents wait that the next regular batch writes whatever the time (held ones count only without a hold). */
  private dueWaiting(): boolean {
    if (this.holdMs === 0) return this.workflows.size + this.tasks.size > 0;
    return this.workflows.finals + this.tasks.finals > 0;
  }

  /** Set by a flush() during a write: the next batch follows at once instead of after the delay. */
  private urgent = false;

  /** Writes one batch (more when flush() asked meanwhile); never two at once, so a slow index makes batches bigger, not more. */
  private async drain(): Promise<void> {
    this.running = true;
    for (;;) {
      // References, not copies: an adapter summarises a document when it writes it, so a document may
      // show a later committed (or committing) turn of its execution than the one that queued it. The
      // next batch writes that turn anyway, and recovery re-indexes open executions after a crash.
      const all = this.everything;
      this.everything = false;
      const now = this.now();
      const workflows = all ? this.workflows.takeAll() : this.workflows.takeDue(now, this.holdMs);
      const tasks = all ? this.tasks.takeAll() : this.tasks.takeDue(now, this.holdMs);
      const waiters = this.waiters;
      this.waiters = [];
      try {
        if (workflows.size) await this.index.indexWorkflows(docsOf(workflows));
        if (tasks.size) await this.index.indexTasks(docsOf(tasks));
        waiters.forEach((w) => w.resolve());
      } catch (e) {
        waiters.forEach((w) => w.reject(e));
        this.log.error({ err: e }, 'indexing failed; documents will be re-added');
        this.workflows.putBack(workflows);
        this.tasks.putBack(tasks);
        this.running = false;
        this.urgent = false;
        if (!this.timer) this.arm(this.now() + 1000);
        return;
      }
      if (!this.urgent) break;
      this.urgent = false;
    }
    this.running = false;
    if (!this.dueWaiting()) {
      // Waiters that came during the write wanted that batch: nothing due at the next one is pending.
      const waiters = this.waiters;
      this.waiters = [];
      waiters.forEach((w) => w.resolve());
    }
    this.rearm();
  }
}

const docsOf = <T>(taken: ReadonlyMap<string, Pending<T>>): T[] => [...taken.values()].map((p) => p.doc);
