import { LatencyRecorder } from '../stats/percentiles';
import type { CounterSnapshot } from '../stats/rates';
import { BatonClient, PolledTask } from './baton-client';
import { createPool, type HttpPool } from './http-pool';
import type { ErrorTally, ShapeKey, Verification, WorkerSettings } from './protocol';
import { TaskRunner } from './task-runner';
import { simple3Shape, steps13Shape, WorkflowShape } from './workflow-shapes';

/** One Baton under load: definitions registered, SDK-like runners per task type, counters and latency recorders. */
export class BatonSession {
  readonly client: BatonClient;
  readonly shape: WorkflowShape;
  private readonly runners: TaskRunner[];
  private startSeq = 0;
  readonly errors: ErrorTally = { count: 0, samples: [] };
  readonly counters = { tasksCompleted: 0, tasksPolled: 0, workflowsCompleted: 0, workflowsStarted: 0 };
  readonly startLatency = new LatencyRecorder();
  readonly updateLatency = new LatencyRecorder();
  readonly scheduleToPoll = new LatencyRecorder();
  private readonly recentCompleted: string[] = [];
  onWorkflowCompleted: (() => void) | undefined;

  private constructor(
    private readonly pool: HttpPool,
    shapeKey: ShapeKey,
    settings: WorkerSettings,
    useUpdateV2: boolean,
  ) {
    this.client = new BatonClient(pool);
    const prefix = `bench${process.pid.toString(36)}`;
    this.shape = shapeKey === 'simple3' ? simple3Shape(prefix) : steps13Shape(prefix);
    const observer = {
      polled: (task: PolledTask, receivedEpochMs: number) => {
        this.counters.tasksPolled++;
        // both clocks are this machine's wall clock (server and load process share it)
        this.scheduleToPoll.record(receivedEpochMs - task.scheduledTime);
      },
      completed: (task: PolledTask, updateMs: number) => {
        this.counters.tasksCompleted++;
        this.updateLatency.record(updateMs);
        if (task.referenceTaskName === this.shape.finalTaskRef && task.workflowType === this.shape.mainWorkflow) {
          this.counters.workflowsCompleted++;
          this.recentCompleted.push(task.workflowInstanceId);
          if (this.recentCompleted.length > 20) this.recentCompleted.shift();
          this.onWorkflowCompleted?.();
        }
      },
      error: (what: string, err: unknown) => this.noteError(what, err),
    };
    this.runners = this.shape.taskTypes.map(
      (taskType, i) =>
        new TaskRunner({
          client: this.client,
          taskType,
          workerId: `bench-worker-${i}`,
          concurrency: settings.concurrencyPerType,
          pollTimeoutMs: settings.pollTimeoutMs,
          pollIntervalMs: settings.pollIntervalMs,
          maxBackoffMs: settings.maxBackoffMs,
          useUpdateV2,
          observer,
        }),
    );
  }

  /** Opens a pool sized so that no request waits for a connection in the client, and registers the definitions. */
  static async open(baseUrl: string | string[], shapeKey: ShapeKey, settings: WorkerSettings, useUpdateV2 = false): Promise<BatonSession> {
    const types = shapeKey === 'simple3' ? 3 : 5;
    const pool = createPool(baseUrl, types * (settings.concurrencyPerType + 1) + settings.starters + 4);
    const session = new BatonSession(pool, shapeKey, settings, useUpdateV2);
    await session.client.registerTaskDefs(session.shape.taskDefs);
    for (const def of session.shape.workflowDefs) await session.client.registerWorkflowDef(def);
    return session;
  }

  noteError(what: string, err: unknown): void {
    this.errors.count++;
    if (this.errors.samples.length < 5) this.errors.samples.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** Starts one main workflow; latency runs from `intendedAt` (open loop) or from the send (closed loop). */
  async startOne(intendedAt?: number): Promise<boolean> {
    const sentAt = performance.now();
    try {
      await this.client.startWorkflow(this.shape.mainWorkflow, 1, { n: ++this.startSeq });
      this.counters.workflowsStarted++;
      this.startLatency.record(performance.now() - (intendedAt ?? sentAt));
      return true;
    } catch (e) {
      this.noteError('start', e);
      return false;
    }
  }

  startWorkers(): void {
    for (const r of this.runners) r.start();
  }

  async stopWorkers(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  snapshot(): CounterSnapshot {
    return { atMs: performance.now(), values: { ...this.counters, requests: this.client.requests, polls: this.client.polls } };
  }

  resetLatencies(): void {
    this.startLatency.reset();
    this.updateLatency.reset();
    this.scheduleToPoll.reset();
  }

  /** Asks the server about the last workflows the workers finished, giving each a few seconds to show COMPLETED. */
  async verify(): Promise<Verification> {
    const statuses: Record<string, number> = {};
    let completed = 0;
    const ids = [...this.recentCompleted];
    for (const id of ids) {
      let status = 'UNKNOWN';
      for (let attempt = 0; attempt < 25; attempt++) {
        try {
          status = await this.client.workflowStatus(id);
        } catch (e) {
          status = `ERROR ${e instanceof Error ? e.message.slice(0, 60) : ''}`;
        }
        if (status === 'COMPLETED') break;
        await new Promise((r) => setTimeout(r, 200));
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 'COMPLETED') completed++;
    }
    let indexCompletedTotal: number | null = null;
    let indexError: string | undefined;
    try {
      indexCompletedTotal = await this.client.completedWorkflowsInIndex();
    } catch (e) {
      indexError = e instanceof Error ? e.message.slice(0, 200) : String(e);
    }
    return { checked: ids.length, completed, statuses, indexCompletedTotal, ...(indexError ? { indexError } : {}) };
  }

  async close(): Promise<void> {
    await this.stopWorkers();
    await this.pool.close();
  }
}
