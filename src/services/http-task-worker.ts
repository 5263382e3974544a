import os from 'node:os';
import type { Logger } from 'pino';
import { TaskTypeName } from '../engine/tasks/names';
import { httpRequestOf } from '../model/http-request';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import { PayloadTooLargeError } from '../store/ports';
import { checkDestination, checkName, normaliseAddress, type EgressPolicy, type EgressRule } from './http-task/egress-policy';
import type { ResolveHost } from './http-task/guarded-connector';
import { FairScheduler, type Started } from './http-task/fair-scheduler';
import { hostKeyOf } from './http-task/host-key';
import { performCall } from './http-task/http-call';
import { callRequestOf, oversizedResult, taskResultOf } from './http-task/task-request';
import type { TaskService } from './task-service';
import { redactSecrets } from '../secrets/secret-references';
import { missingSecretsReason, type SecretService } from './secret-service';

// Baton's own worker for HTTP tasks: it polls the HTTP queue like any worker and reports through the
// same update path, so retries, timeouts and limits apply unchanged (Conductor runs HTTP as an async
// system task the same way: http-task/src/main/java/com/netflix/conductor/tasks/http/HttpTask.java).

export interface HttpTaskWorkerOptions {
  /** HTTP calls in flight at once (BATON_HTTP_TASK_WORKERS); 0 polls nothing. */
  concurrency: number;
  hostName: string;
  /** Calls in flight to one host and port at once (BATON_HTTP_TASK_PER_HOST). */
  perHost: number;
  /** Claimed tasks waiting for a host at its cap (BATON_HTTP_TASK_QUEUE_PER_HOST); more stay in the HTTP queue. */
  queuePerHost: number;
  maxResponseBytes: number;
  maxTimeoutMs: number;
  maxRedirects: number;
  allow: EgressRule[];
  deny: EgressRule[];
  /** Reach only what `allow` lists. */
  allowOnly?: boolean;
  /** How long stop() lets calls in flight finish before abandoning them to their response timeouts. */
  stopGraceMs?: number;
  /** Name resolution (tests substitute one to play DNS answers). */
  resolve?: ResolveHost;
  /** Reveals `${workflow.secrets.NAME}` in the request; without it references go out as written. */
  secrets?: SecretService;
}

/** Addresses of this machine's interfaces: a task must not reach Baton's ports through them either. */
function interfaceAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) {
      const n = normaliseAddress(a.address);
      if (n) out.push(n);
    }
  return out;
}

/** The key a task's calls are counted by; tasks without a usable URI share one (they fail without a call). */
function hostOf(t: Task): string {
  return hostKeyOf(httpRequestOf(t.inputData).uri) ?? '';
}

/** A claimed task in the scheduler: whole while it may start at once, only its ids while it waits (re-read at its start). */
interface Claimed {
  taskId: string;
  workflowId: string;
  task?: Task;
}

/** Polls the HTTP queue while a call slot is free and runs the calls the fair scheduler starts, until stopped. */
export class HttpTaskWorker {
  private stopped = false;
  private readonly stopPolls = new AbortController();
  private readonly abandonCalls = new AbortController();
  private readonly scheduler: FairScheduler<Claimed>;
  /** Heartbeats of claimed tasks waiting for their host, by task id. */
  private readonly waitBeats = new Map<string, () => void>();
  private readonly calls = new Set<Promise<void>>();
  private policy: EgressPolicy;
  private poller: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly tasks: TaskService,
    private readonly log: Logger,
    private readonly opts: HttpTaskWorkerOptions,
  ) {
    this.scheduler = new FairScheduler({ slots: opts.concurrency, perHost: opts.perHost, queuePerHost: opts.queuePerHost });
    this.policy = { allow: opts.allow, deny: opts.deny, listedOnly: opts.allowOnly ?? false, ownPorts: [], localAddresses: [] };
  }

  /** Starts polling; `ownPorts` are the ports Baton listens on (known once it listens). */
  start(ownPorts: number[]): void {
    this.policy = { ...this.policy, ownPorts, localAddresses: interfaceAddresses() };
    if (this.opts.concurrency > 0) this.poller = this.pollLoop();
  }

  /** Claims as many tasks as there are free slots; those of a host at its cap wait without one. */
  private async pollLoop(): Promise<void> {
    while (!this.stopped) {
      const free = this.scheduler.freeSlots();
      if (free <= 0) {
        await new Promise<void>((r) => (this.wake = r));
        continue;
      }
      let polled: Task[] = [];
      try {
        polled = await this.tasks.poll(TaskTypeName.HTTP, { workerId: this.opts.hostName, count: free, timeoutMs: 1000, signal: this.stopPolls.signal });
      } catch (e) {
        if (!this.stopped) this.log.warn({ err: e }, 'HTTP task worker poll failed');
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const task of polled) this.schedule(task);
    }
  }

  private schedule(task: Task): void {
    const host = hostOf(task);
    const claimed: Claimed = { taskId: task.taskId, workflowId: task.workflowInstanceId, task };
    const started = this.scheduler.add(host, claimed);
    if (!started) {
      // Failed (retried per its definition) rather than left at the head of the HTTP queue, where every poll would meet it again before other hosts' tasks.
      const { running, waiting } = this.scheduler.load(host);
      const reason = `too many tasks for ${host} on this replica: ${running} in flight (BATON_HTTP_TASK_PER_HOST) and ${waiting} waiting (BATON_HTTP_TASK_QUEUE_PER_HOST)`;
      this.report(taskResultOf(task, { kind: 'failure', reason }, this.opts.hostName)).catch((e) =>
        this.log.warn({ err: e, taskId: task.taskId }, 'HTTP task worker error'),
      );
      return;
    }
    if (!started.some((s) => s.item === claimed)) {
      // A long queue holds ids, not request bodies: the task is read again when it starts.
      delete claimed.task;
      const { taskId, workflowInstanceId, responseTimeoutSeconds } = task;
      this.waitBeats.set(taskId, this.heartbeat({ taskId, workflowInstanceId, responseTimeoutSeconds }));
    }
    this.launch(started);
  }

  /** Runs the calls the scheduler started; each one's end may start the next. */
  private launch(started: Started<Claimed>[]): void {
    for (const { host, item } of started) {
      this.waitBeats.get(item.taskId)?.();
      this.waitBeats.delete(item.taskId);
      const call: Promise<void> = this.runClaimed(item)
        .catch((e) => this.log.warn({ err: e, taskId: item.taskId }, 'HTTP task worker error'))
        .finally(() => {
          this.calls.delete(call);
          this.launch(this.scheduler.finish(host));
          const wake = this.wake;
          this.wake = undefined;
          wake?.();
        });
      this.calls.add(call);
    }
  }

  /** A task that waited runs as it is now: not at all once it is no longer IN_PROGRESS (timed out, its workflow ended). */
  private async runClaimed(item: Claimed): Promise<void> {
    const task = item.task ?? (await this.tasks.getTask(item.taskId));
    if (!task || task.status !== 'IN_PROGRESS') return;
    await this.run(task);
  }

  /** The task's input with its secrets in (only for the call), and the values to keep out of what is stored; a reason when they cannot be had. */
  private async revealed(task: Task): Promise<{ input: Record<string, unknown>; values: string[] } | { reason: string }> {
    if (!this.opts.secrets) return { input: task.inputData, values: [] };
    try {
      const r = await this.opts.secrets.reveal(task.inputData);
      return r.missing.length > 0 ? { reason: missingSecretsReason(r.missing) } : r;
    } catch (e) {
      // The key is missing or wrong: the messages name secrets and the key variable, never a value.
      return { reason: `Secrets could not be read: ${(e as Error).message}` };
    }
  }

  private async run(task: Task): Promise<void> {
    const input = await this.revealed(task);
    if ('reason' in input) return this.report(taskResultOf(task, { kind: 'invalid', reason: input.reason }, this.opts.hostName));
    // Whatever the call's outcome echoes (a reason naming the URI, a body repeating a header) is stored without the secrets.
    const report = (result: TaskResult): Promise<void> =>
      this.report({
        ...result,
        reasonForIncompletion: redactSecrets(result.reasonForIncompletion, input.values),
        outputData: redactSecrets(result.outputData, input.values),
      });
    const req = callRequestOf(input.input, { maxTimeoutMs: this.opts.maxTimeoutMs, maxRedirects: this.opts.maxRedirects });
    if (!req.ok) return report(taskResultOf(task, { kind: 'invalid', reason: req.reason }, this.opts.hostName));
    const stopHeartbeat = this.heartbeat(task);
    try {
      const outcome = await performCall(req.request, {
        checkName: (host) => checkName(this.policy, host),
        check: (d) => checkDestination(this.policy, d),
        maxResponseBytes: this.opts.maxResponseBytes,
        resolve: this.opts.resolve,
        signal: this.abandonCalls.signal,
      });
      // Abandoned at stop: the task's response timeout hands it on (retried per its definition).
      if (this.abandonCalls.signal.aborted) return;
      await report(taskResultOf(task, outcome, this.opts.hostName));
    } finally {
      stopHeartbeat();
    }
  }

  /** Keeps the task's response timeout from firing while its call is still running here. */
  private heartbeat(task: Pick<Task, 'taskId' | 'workflowInstanceId' | 'responseTimeoutSeconds'>): () => void {
    if (!(task.responseTimeoutSeconds > 0)) return () => undefined;
    const everyMs = Math.max(1000, (task.responseTimeoutSeconds * 1000) / 3);
    const beat = setInterval(() => {
      this.tasks
        .update({ workflowInstanceId: task.workflowInstanceId, taskId: task.taskId, status: 'IN_PROGRESS', extendLease: true })
        .catch((e) => this.log.debug({ err: e, taskId: task.taskId }, 'HTTP task heartbeat failed'));
    }, everyMs);
    beat.unref();
    return () => clearInterval(beat);
  }

  private async report(result: TaskResult): Promise<void> {
    try {
      await this.tasks.update(result);
    } catch (e) {
      // A body under the response cap can still be over the task payload limit: fail the task, saying so.
      if (!(e instanceof PayloadTooLargeError)) throw e;
      await this.tasks.update(oversizedResult(result, e.message));
    }
  }

  /** Tasks still waiting for their host were never started: they go back to their queue for another replica. */
  private async releaseWaiting(): Promise<void> {
    const waiting = this.scheduler.drain().map(({ item }) => item);
    for (const { taskId } of waiting) {
      this.waitBeats.get(taskId)?.();
      this.waitBeats.delete(taskId);
    }
    await Promise.all(
      waiting.map(({ workflowId, taskId }) =>
        // Not given back (the host gone too): its response timeout hands it on, as for a replica killed.
        this.tasks.release(workflowId, taskId).catch((e) => this.log.warn({ err: e, taskId }, 'could not give back a waiting HTTP task')),
      ),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopPolls.abort();
    this.wake?.();
    await this.releaseWaiting();
    await this.poller;
    await this.releaseWaiting();
    const all = Promise.allSettled([...this.calls]);
    const grace = new Promise<void>((r) => setTimeout(r, this.opts.stopGraceMs ?? 5000).unref());
    await Promise.race([all, grace]);
    this.abandonCalls.abort();
    await all;
  }
}
