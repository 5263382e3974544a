import { v7 } from 'uuid';
import type { Task, WorkflowRecord } from '../../src/model/execution';
import { retentionRules } from '../../src/retention/policy';
import type { WorkflowStatus } from '../../src/model/statuses';
import type { SearchIndex } from '../../src/search/ports';
import type { ExecutionStore } from '../../src/store/ports';
import { makeCommit, makeTask, makeWorkflowRecord } from '../contracts/fixtures';

export const DAY = 86_400_000;

/** The real retention suites' rules: `r_long` kept a year, `r_archived` archived after a week, the rest gone after 30 days unarchived. */
export const suiteRetentionRules = async () =>
  retentionRules(
    [
      { name: 'r_long', version: 1, retention: { days: 365 } },
      { name: 'r_archived', version: 1, retention: { days: 7, archive: true } },
    ],
    { days: 30, archive: false },
  );

/** `count` executions of `name` with `status`, ended `endedDaysAgo` days before `now` (open ones never ended). */
export interface Group {
  name: string;
  status: WorkflowStatus;
  endedDaysAgo: number;
  count: number;
  /** Time-ordered ids (UUIDv7) made from this time on, one ms apart; otherwise the fixtures' (or idPrefix's) ids. */
  createdAt?: number;
}

const PAYLOAD = { text: 'x'.repeat(300), numbers: Array.from({ length: 20 }, (_, i) => i) };

/**
 * Writes the groups straight through the store's commit and the index (not the API), two tasks each, in
 * batches of group-commits. Answers the ids per group name and status.
 */
export async function populate(store: ExecutionStore, index: SearchIndex, groups: Group[], now: number, idPrefix?: string): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  const BATCH = 2000;
  for (const g of groups) {
    const key = `${g.name}/${g.status}`;
    const list = ids.get(key) ?? [];
    ids.set(key, list);
    for (let done = 0; done < g.count; done += BATCH) {
      const wfs: WorkflowRecord[] = [];
      const tasks: Task[] = [];
      const n = Math.min(BATCH, g.count - done);
      const open = g.status === 'RUNNING' || g.status === 'PAUSED';
      const endTime = open ? 0 : now - g.endedDaysAgo * DAY - (done % 1000) * 1000;
      const startTime = open ? now - g.endedDaysAgo * DAY : endTime - 60_000;
      const commits: Array<Promise<void>> = [];
      for (let i = 0; i < n; i++) {
        const w = makeWorkflowRecord({
          ...(g.createdAt !== undefined
            ? { workflowId: v7({ msecs: g.createdAt + done + i }) }
            : idPrefix
              ? { workflowId: `${idPrefix}-${g.name}-${g.status}-${done + i}` }
              : {}),
          workflowName: g.name,
          status: g.status,
          startTime,
          createTime: startTime,
          updateTime: endTime || startTime,
          endTime,
          input: PAYLOAD,
        });
        const t = [1, 2].map((seq) =>
          makeTask({
            workflowInstanceId: w.workflowId,
            workflowType: g.name,
            seq,
            status: open ? 'SCHEDULED' : 'COMPLETED',
            outputData: PAYLOAD,
            scheduledTime: startTime,
            updateTime: endTime || startTime,
            endTime,
          }),
        );
        wfs.push(w);
        tasks.push(...t);
        list.push(w.workflowId);
        commits.push(store.commit(makeCommit(w, 0, { upsertTasks: t })));
      }
      await Promise.all(commits);
      await index.indexWorkflows(wfs);
      await index.indexTasks(tasks);
    }
  }
  return ids;
}
