import type { WorkflowTask } from '../../model/definitions';
import type { Turn } from '../state';
import type { TaskMapping, TaskType } from './task-type';

// SIMPLE and every type not known here (user-defined): a worker polls the task from its queue.

/** A user-defined type runs like SIMPLE but needs a registered (or inline) task definition. */
export function mapWorkerTask(turn: Turn, wt: WorkflowTask): TaskMapping {
  if (wt.type !== 'SIMPLE' && !wt.taskDefinition && !turn.env.taskDef(wt.name)) {
    return { invalid: `Invalid task specified. Cannot find task by name ${wt.name} in the task definitions` };
  }
  return {};
}

export const simpleTask: TaskType = {
  types: ['SIMPLE'],
  kind: 'worker',
  map: mapWorkerTask,
  // A SIMPLE task's type is its name; a user-defined type keeps its own.
  taskTypeName: (wt) => (wt.type === 'SIMPLE' ? wt.name : wt.type),
};
