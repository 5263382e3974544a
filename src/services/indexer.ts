import type { Logger } from 'pino';
import type { Task, WorkflowRecord } from '../model/execution';
import type { SearchIndex } from '../search/ports';

/**
 * Feeds the search index from committed turns: coalesces by id (the latest state wins) and writes
 * in batches, so the index is visible within a second and costs one write per batch, not per turn.
 */
export class Indexer {
  private workflows = new Map<string, WorkflowRecord>();
  private tasks = new Map<string, Task>();
  private timer?: NodeJS.Timeout;
  /** A batch is being written: later documents wait in the maps (coalescing) instead of queueing copies. */
  private running = false;
  private waiters: Array<{ resolve(): void; reject(e: unknown): void }> = [];
  /** The batch being written, if any (ends when drain() returns). */
  private draining?: Promise<void>;
  /** Executions being removed: their documents are not taken any more (counted: removals may overlap). */
  private readonly removing = new Map<string, number>();

  constructor(
    private readonly index: SearchIndex,
    private readonly log: Logger,
    private readonly delayMs = 200,
  ) {}

  add(workflow: WorkflowRecord | undefined, tasks: Iterable<Task>): void {
    if (workflow && !this.removing.has(workflow.workflowId)) this.workflows.set(workflow.workflowId, workflow);
    for (const t of tasks) if (!this.removing.has(t.workflowInstanceId)) this.tasks.set(t.taskId, t);
    if (!this.timer && !this.running) this.arm(this.delayMs);
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
    this.workflows.delete(workflowId);
    for (const [id, t] of this.tasks) if (t.workflowInstanceId === workflowId) this.tasks.delete(id);
  }

  /** The regular flush: no waiter of its own, so a failed write (index down) rejects only callers that asked. */
  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, ms);
    this.timer.unref();
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

  /** Resolves once everything added so far is in the index, at the next regular flush. */
  settled(): Promise<void> {
    if (!this.timer && !this.running && this.workflows.size === 0 && this.tasks.size === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  /** Writes everything added so far; resolves when it is in the index. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.kick();
    return done;
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
      const workflows = [...this.workflows.values()];
      const tasks = [...this.tasks.values()];
      this.workflows = new Map();
      this.tasks = new Map();
      const waiters = this.waiters;
      this.waiters = [];
      try {
        if (workflows.length) await this.index.indexWorkflows(workflows);
        if (tasks.length) await this.index.indexTasks(tasks);
        waiters.forEach((w) => w.resolve());
      } catch (e) {
        waiters.forEach((w) => w.reject(e));
        this.log.error({ err: e }, 'indexing failed; documents will be re-added');
        for (const w of workflows) if (!this.workflows.has(w.workflowId)) this.workflows.set(w.workflowId, w);
        for (const t of tasks) if (!this.tasks.has(t.taskId)) this.tasks.set(t.taskId, t);
        this.running = false;
        this.urgent = false;
        if (!this.timer) this.arm(1000);
        return;
      }
      if (!this.urgent) break;
      this.urgent = false;
    }
    this.running = false;
    if (this.workflows.size === 0 && this.tasks.size === 0) {
      // Waiters that came during the write wanted that batch: nothing newer is pending.
      const waiters = this.waiters;
      this.waiters = [];
      waiters.forEach((w) => w.resolve());
    } else if (!this.timer) {
      this.arm(this.delayMs);
    }
  }
}
