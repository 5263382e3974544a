import type { SearchIndex } from '../search/ports';
import type { ExecutionStore } from '../store/ports';
import type { WorkflowService } from './workflow-service';

const PAGE = 1000;

/**
 * Re-pushes the SCHEDULED tasks of a type to their queues (Conductor's requeue of pending tasks):
 * each execution holding one is re-evaluated, which re-pushes all its SCHEDULED tasks (idempotent).
 * Candidates come from the search index, so its flush lag (and the hold of open documents) applies. Answers how many tasks qualified.
 */
export async function requeueByType(d: { index: SearchIndex; store: ExecutionStore; workflows: WorkflowService }, taskType: string): Promise<number> {
  let requeued = 0;
  const executions = new Set<string>();
  for (let start = 0; ; start += PAGE) {
    const page = await d.index.searchTasks({
      query: {
        op: 'and',
        left: { op: 'cmp', field: 'taskType', cmp: '=', value: taskType },
        right: { op: 'cmp', field: 'status', cmp: '=', value: 'SCHEDULED' },
      },
      freeText: { kind: 'all' },
      sort: [],
      start,
      size: PAGE,
    });
    for (const hit of page.results) {
      const t = await d.store.getTask(hit.taskId);
      if (t?.status !== 'SCHEDULED') continue;
      requeued++;
      executions.add(t.workflowInstanceId);
    }
    if (page.results.length < PAGE) break;
  }
  // One failing execution does not stop the others.
  for (const id of executions) await d.workflows.reevaluate(id).catch(() => undefined);
  return requeued;
}
