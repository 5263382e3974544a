import type { BatonClient, PolledTask, TaskResultBody } from './baton-client';

export interface TaskObserver {
  /** A task reached the worker; `receivedEpochMs` is the wall clock when the poll (or update-v2) answered. */
  polled(task: PolledTask, receivedEpochMs: number): void;
  /** The server accepted the COMPLETED update after `updateMs` milliseconds. */
  completed(task: PolledTask, updateMs: number): void;
  error(what: string, err: unknown): void;
}

export interface TaskRunnerOptions {
  client: BatonClient;
  taskType: string;
  workerId: string;
  /** Tasks this runner may hold at once; a poll asks for the free slots. */
  concurrency: number;
  /** Server-side long-poll timeout of each batch poll (the SDK's batchPollingTimeout, 100 ms). */
  pollTimeoutMs: number;
  /** Pause after each poll (the SDK's pollInterval; 0 lets a worker poll again as soon as slots free up). */
  pollIntervalMs: number;
  /** Cap of the adaptive back-off after empty polls (1, 2, 4, ... ms), as the SDK does. */
  maxBackoffMs: number;
  /** Report with update-v2 and run the returned task at once (SDK 3.x chaining) instead of POST /api/tasks. */
  useUpdateV2: boolean;
  observer: TaskObserver;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A worker loop shaped like the official SDK's TaskRunner: batch poll with count = free slots and a
 * short long-poll timeout, execute (here: echo a tiny output at once), report each result on its own.
 */
export class TaskRunner {
  private running = false;
  private inFlight = 0;
  private emptyPolls = 0;
  private slotWaiter: (() => void) | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private idle: (() => void) | undefined;

  constructor(private readonly o: TaskRunnerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops polling and waits for the reports already under way (each bounded by the client's timeouts). */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeSlot();
    await this.loopDone;
    if (this.inFlight > 0) await new Promise<void>((r) => (this.idle = r));
  }

  private wakeSlot(): void {
    const w = this.slotWaiter;
    this.slotWaiter = undefined;
    w?.();
  }

  private async loop(): Promise<void> {
    let lastPollAt = 0;
    while (this.running) {
      const free = this.o.concurrency - this.inFlight;
      if (free <= 0) {
        await new Promise<void>((r) => (this.slotWaiter = r));
        continue;
      }
      if (this.emptyPolls > 0) {
        const backoff = Math.min(2 ** Math.min(this.emptyPolls, 10), this.o.maxBackoffMs);
        const wait = backoff - (Date.now() - lastPollAt);
        if (wait > 0) await sleep(wait);
        if (!this.running) break;
      }
      lastPollAt = Date.now();
      let tasks: PolledTask[];
      try {
        tasks = await this.o.client.batchPoll(this.o.taskType, this.o.workerId, free, this.o.pollTimeoutMs);
      } catch (e) {
        this.o.observer.error(`poll ${this.o.taskType}`, e);
        await sleep(100);
        continue;
      }
      const receivedAt = Date.now();
      this.emptyPolls = tasks.length === 0 ? this.emptyPolls + 1 : 0;
      for (const task of tasks) {
        if (!task.taskId || !task.workflowInstanceId) continue;
        this.o.observer.polled(task, receivedAt);
        this.inFlight++;
        void this.work(task);
      }
      if (this.o.pollIntervalMs > 0) await sleep(this.o.pollIntervalMs);
    }
  }

  private async work(first: PolledTask): Promise<void> {
    let task: PolledTask | null = first;
    while (task) {
      const result: TaskResultBody = {
        workflowInstanceId: task.workflowInstanceId,
        taskId: task.taskId,
        status: 'COMPLETED',
        outputData: { v: task.inputData?.n ?? null, by: this.o.workerId },
        workerId: this.o.workerId,
      };
      const next = await this.report(task, result);
      if (next && this.running) {
        this.o.observer.polled(next, Date.now());
        task = next;
      } else {
        task = null;
      }
    }
    this.inFlight--;
    this.wakeSlot();
    if (this.inFlight === 0 && this.idle) this.idle();
  }

  /** One report with up to three attempts; the SDK retries too (10/20/30 s), shortened here to keep runs bounded. */
  private async report(task: PolledTask, result: TaskResultBody): Promise<PolledTask | null> {
    for (let attempt = 1; ; attempt++) {
      const t0 = performance.now();
      try {
        const next = this.o.useUpdateV2 ? await this.o.client.updateTaskV2(result) : (await this.o.client.updateTask(result), null);
        this.o.observer.completed(task, performance.now() - t0);
        return next;
      } catch (e) {
        if (attempt >= 3) {
          this.o.observer.error(`update ${this.o.taskType}`, e);
          return null;
        }
        await sleep(50 * attempt);
      }
    }
  }
}
