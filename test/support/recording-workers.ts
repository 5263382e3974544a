import { sleep } from './processes';

/** What a worker decided for one task it polled. */
/** 'terminal': FAILED_WITH_TERMINAL_ERROR, which no retry of the task follows. */
export type WorkerAction = 'complete' | 'fail' | 'terminal' | 'ignore';

export interface WorkerLog {
  /** Task ids whose COMPLETED update a server acknowledged (200). */
  acknowledged: Set<string>;
  /** Tasks handed out by a poll after their COMPLETED update was acknowledged: must stay empty. */
  handedOutAgain: Array<{ taskId: string; via: string; pollCount?: number; ackedVia?: string; ackedAt?: number; polledAt: number; pollSentAt: number }>;
  /** Where and when each acknowledged completion was acknowledged. */
  ackedVia: Map<string, { via: string; at: number; pollCount?: number }>;
  /** Failed calls by kind, to tell retryable trouble (connection refused, 503) from wrong answers. */
  errors: string[];
  polls: number;
}

export interface WorkerOptions {
  taskType: string;
  /** Which replica to talk to; asked before every call, undefined when none is wanted now. */
  url: () => string | undefined;
  decide: (task: { taskId: string; retryCount?: number; inputData?: Record<string, unknown> }) => WorkerAction;
  log: WorkerLog;
  count?: number;
  /** Headers of every call (auth on: an access token). */
  headers?: () => Record<string, string>;
}

export const newWorkerLog = (): WorkerLog => ({ acknowledged: new Set(), handedOutAgain: [], ackedVia: new Map(), errors: [], polls: 0 });

/** A plain HTTP worker loop (batch poll, update) that records what the servers acknowledged. */
export function startRecordingWorker(o: WorkerOptions): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const base = o.url();
      if (!base) {
        await sleep(100);
        continue;
      }
      let tasks: Array<{ taskId: string; workflowInstanceId: string; retryCount?: number; pollCount?: number; inputData?: Record<string, unknown> }> = [];
      const pollSentAt = Date.now();
      try {
        const r = await fetch(`${base}/api/tasks/poll/batch/${encodeURIComponent(o.taskType)}?count=${o.count ?? 5}&timeout=500&workerid=recorder`, {
          headers: o.headers?.() ?? {},
        });
        o.log.polls++;
        if (r.status !== 200) {
          o.log.errors.push(`poll ${r.status} ${await r.text()}`);
          await sleep(100);
          continue;
        }
        tasks = (await r.json()) as typeof tasks;
      } catch (err) {
        o.log.errors.push(`poll ${String((err as { cause?: { code?: string } }).cause?.code ?? err)}`);
        await sleep(100);
        continue;
      }
      for (const t of tasks) {
        if (o.log.acknowledged.has(t.taskId)) {
          const acked = o.log.ackedVia.get(t.taskId);
          o.log.handedOutAgain.push({
            taskId: t.taskId,
            via: base,
            pollCount: t.pollCount,
            ackedVia: acked?.via,
            ackedAt: acked?.at,
            polledAt: Date.now(),
            pollSentAt,
          });
        }
        const action = o.decide(t);
        if (action === 'ignore') continue;
        const status = action === 'complete' ? 'COMPLETED' : action === 'terminal' ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED';
        try {
          const r = await fetch(`${base}/api/tasks`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...o.headers?.() },
            body: JSON.stringify({
              workflowInstanceId: t.workflowInstanceId,
              taskId: t.taskId,
              status,
              outputData: { by: 'recorder', attempt: t.retryCount ?? 0 },
            }),
          });
          const text = await r.text();
          if (r.status === 200 && status === 'COMPLETED') {
            o.log.acknowledged.add(t.taskId);
            o.log.ackedVia.set(t.taskId, { via: base, at: Date.now(), pollCount: t.pollCount });
          } else if (r.status !== 200) o.log.errors.push(`update ${r.status} ${text}`);
        } catch (err) {
          // Not acknowledged: the task comes back by its response timeout.
          o.log.errors.push(`update ${String((err as { cause?: { code?: string } }).cause?.code ?? err)}`);
        }
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
