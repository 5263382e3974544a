import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { queueName, type QueueKey } from '../model/effects';
import type { QueueEntry } from '../actors/protocol/queue-protocol';
import type { QueuePartitionAccess } from '../queues/ports';
import { workflowActor } from '../actors/protocol/workflow-protocol';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import { POLL_DATA_MAX_ENTRIES, type PollRecord, type QueueDirectory, type TaskLimits, type WakeUps } from '../limits/ports';
import type { LongPollSlots } from '../limits/long-poll-slots';
import type { ActorHost } from '../runtime/ports';
import type { ExecutionStore } from '../store/ports';
import type { MetadataService } from './metadata-service';
import type { QueuePartitions } from './queues';
import { Errors } from '../model/named-errors';
import { withComputed } from './workflow-service';
import { taskView } from '../model/payload-view';
import { settleUnknownOutcome, storedUpdateOutcome, type SettlePolicy } from './unknown-outcome';

export type PollData = PollRecord;

export interface PollArgs {
  workerId?: string;
  domain?: string;
  count: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Who polls (clientOf), for the cap on polls in flight per client; Baton's own system workers give none. */
  client?: string;
  /**
   * Asked with the stored task before a taken entry is claimed; false puts it back in its queue for a
   * later poll (Baton's HTTP worker uses it to keep a busy host's tasks waiting unclaimed).
   */
  admit?: (task: Task) => boolean;
}

/** Conductor postpones a task held back by a limit by 60 s; Baton retries sooner, as the limit frees up. */
const LIMIT_POSTPONE_MS = 1000;
/** How soon an entry whose claim failed is handed out again. */
const CLAIM_RETRY_MS = 1000;
/** A claim is asked twice, 200 ms apart, before its entry goes back to the queue. */
const CLAIM_ATTEMPTS = 2;
const CLAIM_REPEAT_MS = 200;

/** The matching side of the front end: long polls over queue partitions, claims, updates. */
export class TaskService {
  /** The last poll per (task type, domain), the most recently polled POLL_DATA_MAX_ENTRIES of them. */
  private readonly pollData: LRUCache<string, PollData>;
  private rotation = 0;

  constructor(
    private readonly deps: {
      host: ActorHost;
      queues: QueuePartitionAccess;
      partitions: QueuePartitions;
      store: ExecutionStore;
      metadata: MetadataService;
      limits: TaskLimits;
      wakeUps: WakeUps;
      directory: QueueDirectory;
      log: Logger;
      /** How often the domain-activity view is refreshed from the shared directory (0: this process only). */
      directoryRefreshMs?: number;
      /** Most poll records kept (POLL_DATA_MAX_ENTRIES). */
      maxPollRecords?: number;
      /** Polls in flight per client (BATON_MAX_LONG_POLLS_PER_CLIENT); without it, unlimited. */
      longPolls?: LongPollSlots;
      /** How an update whose answer was lost is settled (SETTLE_POLICY). */
      settle?: SettlePolicy;
    },
  ) {
    this.pollData = new LRUCache({ max: deps.maxPollRecords ?? POLL_DATA_MAX_ENTRIES });
    const every = deps.directoryRefreshMs ?? 0;
    if (every > 0) {
      this.refresher = setInterval(() => void this.refreshPollData(), every);
      this.refresher.unref();
    }
  }

  private refresher?: NodeJS.Timeout;

  /** Merges other replicas' polls into the view the decider reads synchronously (isDomainActive). */
  private async refreshPollData(): Promise<void> {
    try {
      for (const p of await this.deps.directory.pollData()) {
        const k = `${p.queueName}\u0000${p.domain ?? ''}`;
        if ((this.pollData.peek(k)?.lastPollTime ?? 0) < p.lastPollTime) this.pollData.set(k, p);
      }
    } catch (e) {
      this.deps.log.warn({ err: e }, 'poll data refresh failed');
    }
  }

  stop(): void {
    if (this.refresher) clearInterval(this.refresher);
  }

  isDomainActive = (taskType: string, domain: string): boolean => {
    const p = this.pollData.peek(`${taskType}\u0000${domain}`);
    return !!p && Date.now() - p.lastPollTime < 10_000;
  };

  private recordPoll(taskType: string, domain: string | undefined, workerId: string | undefined): void {
    const p: PollData = { queueName: taskType, domain, workerId, lastPollTime: Date.now() };
    this.pollData.set(`${taskType}\u0000${domain ?? ''}`, p);
    this.deps.directory.recordPoll(p);
  }

  /** Poll data of every replica (Conductor's PollData: queueName, domain, workerId, lastPollTime). */
  async listPollData(taskType?: string): Promise<PollData[]> {
    const latest = new Map<string, PollData>();
    for (const p of [...(await this.deps.directory.pollData()), ...this.pollData.values()]) {
      const k = `${p.queueName}\u0000${p.domain ?? ''}`;
      if ((latest.get(k)?.lastPollTime ?? 0) <= p.lastPollTime) latest.set(k, p);
    }
    return [...latest.values()].filter((p) => !taskType || p.queueName === taskType);
  }

  async poll(taskType: string, a: PollArgs): Promise<Task[]> {
    const release = this.takePollSlot(a.client);
    try {
      return await this.pollQueues(taskType, a);
    } finally {
      release();
    }
  }

  /**
   * A client past its polls in flight gets a 429 at once instead of one more held connection; the official
   * SDKs back off and retry on 429 (the JS SDK's fetch waits 1 s, then doubles).
   */
  private takePollSlot(client: string | undefined): () => void {
    const slots = this.deps.longPolls;
    if (!slots || client === undefined) return () => undefined;
    const release = slots.take(client);
    if (!release) throw Errors.LONG_POLLS_AT_LIMIT(slots.perClient);
    return release;
  }

  private async pollQueues(taskType: string, a: PollArgs): Promise<Task[]> {
    const { partitions, wakeUps } = this.deps;
    this.recordPoll(taskType, a.domain, a.workerId);
    const def = this.deps.metadata.taskDef(taskType);
    const q: QueueKey = {
      taskType,
      domain: a.domain || undefined,
      isolationGroupId: def?.isolationGroupId ?? undefined,
      executionNameSpace: def?.executionNameSpace ?? undefined,
    };
    const name = queueName(q);
    const deadline = Date.now() + a.timeoutMs;
    const out: Task[] = [];
    for (;;) {
      let nextVisibleAt = Infinity;
      for (const actorId of partitions.actorIds(name, this.rotation++)) {
        if (out.length >= a.count) break;
        const r = await this.deps.queues(actorId).take({ count: a.count - out.length, now: Date.now() });
        if (r.nextVisibleAt) nextVisibleAt = Math.min(nextVisibleAt, r.nextVisibleAt);
        if (r.entries.length === 0) continue;
        // Claims of different executions run side by side (and share one group commit); order is kept.
        const claimed = await Promise.all(
          r.entries.map((e) => this.claim(actorId, e, a.workerId, taskType, a.admit).catch((err: unknown) => this.returnToQueue(actorId, e, err))),
        );
        for (const t of claimed) if (t) out.push(t);
      }
      const now = Date.now();
      if (out.length > 0 || now >= deadline || a.signal?.aborted) return out;
      await wakeUps.wait(name, Math.max(1, Math.min(deadline, nextVisibleAt) - now), a.signal);
    }
  }

  /** Claims one taken entry: the task (handed out), or null (stale, or pushed back to be handed out later). */
  private async claim(actorId: string, e: QueueEntry, workerId: string | undefined, taskDefName: string, admit?: PollArgs['admit']): Promise<Task | null> {
    const { limits } = this.deps;
    if (admit) {
      const stored = await this.deps.store.getTask(e.taskId);
      if (stored && stored.status === 'SCHEDULED' && !admit(stored)) {
        await this.pushBack(actorId, e, LIMIT_POSTPONE_MS);
        return null;
      }
    }
    // A queue holds tasks of one type, and a worker task's definition is named after its type.
    const def = this.deps.metadata.taskDef(taskDefName);
    const limit = def?.concurrentExecLimit ?? 0;
    const rate = def?.rateLimitPerFrequency ?? 0;
    if (limit > 0 || rate > 0) {
      const allowed =
        (limit <= 0 || (await limits.tryAcquire(taskDefName, limit, e.taskId))) &&
        (rate <= 0 || (await limits.tryRate(taskDefName, rate, def?.rateLimitFrequencyInSeconds ?? 1, Date.now())));
      if (!allowed) {
        if (limit > 0) await limits.release(taskDefName, e.taskId);
        await this.pushBack(actorId, e, LIMIT_POSTPONE_MS);
        return null;
      }
    }
    const claimed = await this.claimOnce(e.workflowId, { taskId: e.taskId, workerId, claimId: randomUUID() });
    return claimed ? withComputed(claimed) : null;
  }

  /**
   * A taken entry whose claim failed (e.g. the execution's replica just died, or a limit could not be
   * read) is handed out again soon; if the claim took effect after all, the pushed entry is stale and
   * its claim answers null. Should the push fail too, the task is still SCHEDULED: its execution's
   * recovery pushes it again.
   */
  private async returnToQueue(actorId: string, e: QueueEntry, err: unknown): Promise<null> {
    this.deps.log.warn({ err, taskId: e.taskId }, 'claim failed; the task returns to its queue');
    await this.pushBack(actorId, e, CLAIM_RETRY_MS).catch((pushErr: unknown) =>
      this.deps.log.warn({ err: pushErr, taskId: e.taskId }, 'could not push the task back; its execution re-pushes it when recovered'),
    );
    return null;
  }

  /** Puts a taken entry back, visible `afterMs` from now. */
  private pushBack(actorId: string, e: QueueEntry, afterMs: number): Promise<boolean> {
    return this.deps.queues(actorId).push({ ...e, visibleAt: Date.now() + afterMs });
  }

  /**
   * A claim whose answer is lost may have taken effect: asked again with the same claim id, the execution answers the
   * task that claim took (instead of null, which would drop the entry and strand the task until its response timeout).
   */
  private async claimOnce(workflowId: string, arg: { taskId: string; workerId?: string; claimId: string }): Promise<Task | null> {
    const actor = workflowActor(this.deps.host, workflowId);
    for (let attempt = 1; ; attempt++) {
      try {
        return await actor.claim(arg);
      } catch (err) {
        if (attempt >= CLAIM_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, CLAIM_REPEAT_MS));
      }
    }
  }

  async update(result: TaskResult): Promise<'applied' | 'ignored'> {
    const actor = workflowActor(this.deps.host, result.workflowInstanceId);
    return settleUnknownOutcome(
      {
        call: () => actor.update(result),
        resend: async () => this.repeatOutcome(result, await actor.update(result)),
        lookup: async () => (await this.storedOutcome(result))?.outcome,
      },
      this.deps.settle,
    );
  }

  /** A repeat is ignored when the lost call had applied: then the store shows this result's status. */
  private async repeatOutcome(result: TaskResult, outcome: 'applied' | 'ignored'): Promise<'applied' | 'ignored'> {
    return outcome === 'ignored' ? ((await this.storedOutcome(result))?.outcome ?? outcome) : outcome;
  }

  /** What the store says of an update whose answer was lost (storedUpdateOutcome), with the task. */
  private async storedOutcome(result: TaskResult): Promise<{ outcome: 'applied' | 'ignored'; task: Task } | undefined> {
    const task = await this.deps.store.getTask(result.taskId);
    const outcome = storedUpdateOutcome(result, task);
    return outcome && task && { outcome, task };
  }

  /**
   * update-v2: applies a result, then answers the next task of the same type and domain for the same worker:
   * the one the execution handed over in the same turn when the result scheduled it, else a poll (no wait).
   */
  async updateAndPollNext(result: TaskResult): Promise<{ outcome: 'applied' | 'ignored'; next?: Task }> {
    const actor = workflowActor(this.deps.host, result.workflowInstanceId);
    const located = async () => {
      const stored = await this.storedOutcome(result);
      return stored && { outcome: stored.outcome, taskType: stored.task.taskType, domain: stored.task.domain, next: null };
    };
    const done = await settleUnknownOutcome(
      {
        call: () => actor.updateAndLocate(result),
        resend: async () => {
          const again = await actor.updateAndLocate(result);
          return { ...again, outcome: await this.repeatOutcome(result, again.outcome) };
        },
        lookup: located,
      },
      this.deps.settle,
    );
    if (!done.taskType) return { outcome: done.outcome };
    const workerId = result.workerId ?? undefined;
    if (done.next) {
      this.recordPoll(done.taskType, done.domain, workerId);
      return { outcome: done.outcome, next: withComputed(done.next) };
    }
    const [next] = await this.poll(done.taskType, { workerId, domain: done.domain, count: 1, timeoutMs: 0 });
    return { outcome: done.outcome, next };
  }

  /** Gives back a queued system task claimed by Baton's own worker that never started it; false when it was not one any more. */
  release(workflowId: string, taskId: string): Promise<boolean> {
    return workflowActor(this.deps.host, workflowId).release({ taskId });
  }

  async getTask(taskId: string): Promise<Task | undefined> {
    const t = await this.deps.store.getTask(taskId);
    return t ? taskView(withComputed(t)) : undefined;
  }

  /** Every queue name pushed to, by any replica. */
  async knownQueues(): Promise<string[]> {
    return [...new Set([...this.deps.partitions.known, ...(await this.deps.directory.queues())])].sort();
  }

  async queueSize(q: QueueKey): Promise<number> {
    return this.queueSizeByName(queueName(q));
  }

  async queueSizeByName(name: string): Promise<number> {
    let n = 0;
    for (const id of this.deps.partitions.actorIds(name)) n += await this.deps.queues(id).size({ now: Date.now() });
    return n;
  }

  /** Size per partition; none is unacknowledged, as a poll takes its entries out (QueueCalls' take). */
  async queueShards(name: string): Promise<Record<string, { size: number; uacked: number }>> {
    const out: Record<string, { size: number; uacked: number }> = {};
    for (const id of this.deps.partitions.actorIds(name))
      out[id.slice(name.length + 1)] = { size: await this.deps.queues(id).size({ now: Date.now() }), uacked: 0 };
    return out;
  }
}
