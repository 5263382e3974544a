import { blueprintOf } from '../blueprint';
import { scopeOf, type TaskType } from './task-type';

// FORK_JOIN (a FORK task): completes at once, starting the first task of every branch and then its JOIN.
export const forkJoinTask: TaskType = {
  types: ['FORK_JOIN', 'FORK'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  taskTypeName: () => 'FORK',
  start(turn, t) {
    const wt = t.workflowTask;
    const scope = scopeOf(t);
    t.inputData = { ...t.inputData, forkedTasks: (wt.forkTasks ?? []).map((b) => b[0]?.taskReferenceName).filter(Boolean) };
    // Scheduling stops once a branch ended the workflow (a TERMINATE first in its branch).
    const schedule = (wt.forkTasks ?? []).flatMap((branch) => (branch[0] ? [{ task: branch[0], ...scope }] : []));
    const join = blueprintOf(turn.state.workflow.workflowDefinition).following(wt.taskReferenceName);
    if (join) schedule.push({ task: join, ...scope });
    return { end: { output: {} }, ownsSuccessors: true, schedule };
  },
};
