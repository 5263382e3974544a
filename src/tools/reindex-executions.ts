import type { Task, WorkflowRecord } from '../model/execution';
import type { SearchIndex } from '../search/ports';
import type { ExecutionStore } from '../store/ports';

export interface ReindexResult {
  workflows: number;
  tasks: number;
}

/**
 * Writes the summary of every stored execution and of its tasks to the search index, in batches.
 * Upserts only: the index keeps the newer of two summaries (by updateTime), so running this while
 * Baton serves is safe; entries of executions no longer stored are left as they are.
 */
export async function reindexExecutions(
  store: ExecutionStore,
  index: SearchIndex,
  opts: { batchSize?: number; onBatch?: (done: ReindexResult) => void } = {},
): Promise<ReindexResult> {
  const batchSize = opts.batchSize ?? 200;
  const done: ReindexResult = { workflows: 0, tasks: 0 };
  let workflows: WorkflowRecord[] = [];
  let tasks: Task[] = [];
  const flush = async (): Promise<void> => {
    if (workflows.length === 0) return;
    await index.indexWorkflows(workflows);
    if (tasks.length > 0) await index.indexTasks(tasks);
    done.workflows += workflows.length;
    done.tasks += tasks.length;
    workflows = [];
    tasks = [];
    opts.onBatch?.({ ...done });
  };
  for await (const id of store.listWorkflowIds()) {
    const stored = await store.load(id);
    if (!stored) continue; // removed since it was listed
    workflows.push(stored.workflow);
    tasks.push(...stored.tasks);
    if (workflows.length >= batchSize) await flush();
  }
  await flush();
  return done;
}
