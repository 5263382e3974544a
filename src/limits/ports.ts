/**
 * Cross-request coordination a poll needs: long-poll wake-ups and the per-task-type limits of
 * TaskDef (rateLimitPerFrequency / rateLimitFrequencyInSeconds, concurrentExecLimit). Local adapter
 * for one process; Redis adapter shared by all replicas.
 */
export interface WakeUps {
  /** Signals that `queue` (a queue name) has new work. */
  notify(queue: string): void;
  /** Resolves true when `queue` is notified before `timeoutMs`, false on timeout or abort. */
  wait(queue: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

export interface TaskLimits {
  /**
   * Tries to take one slot of the rate window for `taskDefName`. Returns true when allowed.
   * `perFrequency` 0 means unlimited.
   */
  tryRate(taskDefName: string, perFrequency: number, frequencySeconds: number, now: number): Promise<boolean>;
  /** Tries to reserve a concurrency slot (0 = unlimited); `taskId` makes the reservation idempotent. */
  tryAcquire(taskDefName: string, limit: number, taskId: string): Promise<boolean>;
  /** Frees the slot held by taskId (no-op when none). */
  release(taskDefName: string, taskId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Most poll records (one per task type and domain) a directory, and each replica's own view, keep: the least
 * recently polled go first, so polling ever new task types cannot grow memory (or the Redis hash) without bound.
 */
export const POLL_DATA_MAX_ENTRIES = 10_000;

export interface PollRecord {
  queueName: string;
  domain?: string;
  workerId?: string;
  lastPollTime: number;
}

/**
 * Who polls which queue, and which queues exist: shared by all replicas so that `queue/polldata`,
 * `queue/all` and the `taskToDomain` fallback (a domain counts while a worker polled it within 10 s)
 * see every replica's workers. Writes are fire-and-forget and may be throttled.
 */
export interface QueueDirectory {
  recordPoll(p: PollRecord): void;
  recordQueue(name: string): void;
  pollData(): Promise<PollRecord[]>;
  queues(): Promise<string[]>;
  close(): Promise<void>;
}

/** One count of failed attempts: a name (an access key id, a client address) and how many it may fail within the window. */
export interface AttemptSubject {
  key: string;
  limit: number;
}

export type AttemptDecision = { allowed: true; attemptId: string } | { allowed: false; retryAfterMs: number };

/**
 * Failed attempts (POST /api/token) counted per subject in a sliding window, shared by every replica in the
 * distributed profile. An allowed attempt counts as a failure at once, so attempts racing on several
 * replicas cannot slip past the limit; `succeeded` takes it back.
 */
export interface FailedAttempts {
  /** Refused, with the time until the oldest counted failure leaves the window, when any subject holds its limit; else counted against each. */
  begin(subjects: readonly AttemptSubject[], windowMs: number, now: number): Promise<AttemptDecision>;
  /** The attempt succeeded: it no longer counts; subjects in `forgive` lose every failure they hold. */
  succeeded(attemptId: string, subjects: readonly AttemptSubject[], forgive: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
/** What a counted start of a descendant execution came to: counted, or refused by which limit. */
export type DescendantStart = 'admitted' | 'descendants' | 'rate';

export interface DescendantLimits {
  /** Most executions counted below one root. */
  maxDescendants: number;
  /** Most of those counted within the second before `now`. */
  maxPerSecond: number;
}

/**
 * Starts counted per root execution (see model/lineage), so one root's tree of sub-workflows, started and
 * event-triggered workflows stays bounded in size and pace across replicas. Local adapter for one process;
 * Redis adapter shared by all replicas. A root's count lapses after LINEAGE_IDLE_MS without a start.
 */
export interface LineageCounters {
  /**
   * Counts the start of `workflowId` below `rootWorkflowId` at `now` (epoch ms) unless a limit refuses it;
   * a start counted before (an effect run again) is admitted again without counting twice.
   */
  tryStart(rootWorkflowId: string, workflowId: string, limits: DescendantLimits, now: number): Promise<DescendantStart>;
  close(): Promise<void>;
}

/** A tree that started nothing for an hour is forgotten: its counters cannot outlive the runaway they bound. */
export const LINEAGE_IDLE_MS = 3600 * 1000;
