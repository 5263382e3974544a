import os from 'node:os';
import type { Logger } from 'pino';
import { httpRequestOf } from '../model/http-request';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import { PayloadTooLargeError } from '../store/ports';
import { checkDestination, normaliseAddress, type EgressPolicy, type EgressRule } from './http-task/egress-policy';
import type { ResolveHost } from './http-task/guarded-connector';
import { HostSlots, hostKeyOf, type ReleaseSlot } from './http-task/host-slots';
import { performCall } from './http-task/http-call';
import { callRequestOf, oversizedResult, taskResultOf } from './http-task/task-request';
import type { TaskService } from './task-service';
import { redactSecrets } from '../secrets/secret-references';
import { missingSecretsReason, type SecretService } from './secret-service';

// Baton's own worker for HTTP tasks: it polls the HTTP queue like any worker and reports through the
// same update path, so retries, timeouts and limits apply unchanged (Conductor runs HTTP as an async
// system task the same way: http-task/src/main/java/com/netflix/conductor/tasks/http/HttpTask.java).

export interface HttpTaskWorkerOptions {
  /** Poll loops, so HTTP calls in flight at once (BATON_HTTP_TASK_WORKERS). */
  concurrency: number;
  hostName: string;
  /** Calls in flight to one host and port at once (BATON_HTTP_TASK_PER_HOST). */
  perHost: number;
  maxResponseBytes: number;
  maxTimeoutMs: number;
  maxRedirects: number;
  allow: EgressRule[];
  deny: EgressRule[];
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
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) {
    const n = normaliseAddress(a.address);
    if (n) out.push(n);
  }
  return out;
}

/** Runs `concurrency` poll loops on the HTTP queue until stopped. */
export class HttpTaskWorker {
  private stopped = false;
  private readonly stopPolls = new AbortController();
  private readonly abandonCalls = new AbortController();
  private readonly slots: HostSlots;
  private policy: EgressPolicy;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly tasks: TaskService,
    private readonly log: Logger,
    private readonly opts: HttpTaskWorkerOptions,
  ) {
    this.slots = new HostSlots(opts.perHost);
    this.policy = { allow: opts.allow, deny: opts.deny, ownPorts: [], localAddresses: [] };
  }

  /** Starts polling; `ownPorts` are the ports Baton listens on (known once it listens). */
  start(ownPorts: number[]): void {
    this.policy = { ...this.policy, ownPorts, localAddresses: interfaceAddresses() };
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop());
  }

  /** Takes a host slot for a task about to be claimed; false leaves it in its queue for a later poll. */
  private admit(t: Task, admitted: Map<string, ReleaseSlot>): boolean {
    const key = hostKeyOf(httpRequestOf(t.inputData).uri);
    if (!key) return true; // no usable URI: the task fails without a call
    const release = this.slots.tryAcquire(key);
    if (!release) return false;
    admitted.set(t.taskId, release);
    return true;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const admitted = new Map<string, ReleaseSlot>();
      let task: Task | undefined;
      try {
        [task] = await this.tasks.poll('HTTP', {
          workerId: this.opts.hostName,
          count: 1,
          timeoutMs: 1000,
          signal: this.stopPolls.signal,
          admit: (t) => this.admit(t, admitted),
        });
      } catch (e) {
        if (!this.stopped) this.log.warn({ err: e }, 'HTTP task worker poll failed');
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        // Slots taken for entries that were not handed out after all (stale, held back by a limit).
        for (const [id, release] of admitted) if (id !== task?.taskId) release();
      }
      if (!task) continue;
      try {
        await this.run(task);
      } catch (e) {
        this.log.warn({ err: e, taskId: task.taskId }, 'HTTP task worker error');
      } finally {
        admitted.get(task.taskId)?.();
      }
    }
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
      this.report({ ...result, reasonForIncompletion: redactSecrets(result.reasonForIncompletion, input.values), outputData: redactSecrets(result.outputData, input.values) });
    const req = callRequestOf(input.input, { maxTimeoutMs: this.opts.maxTimeoutMs, maxRedirects: this.opts.maxRedirects });
    if (!req.ok) return report(taskResultOf(task, { kind: 'invalid', reason: req.reason }, this.opts.hostName));
    const stopHeartbeat = this.heartbeat(task);
    try {
      const outcome = await performCall(req.request, {
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
  private heartbeat(task: Task): () => void {
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

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopPolls.abort();
    const all = Promise.allSettled(this.loops);
    const grace = new Promise<void>((r) => setTimeout(r, this.opts.stopGraceMs ?? 5000).unref());
    await Promise.race([all, grace]);
    this.abandonCalls.abort();
    await all;
  }
}
