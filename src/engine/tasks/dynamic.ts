import { resolveInput } from '../context';
import type { TaskType } from './task-type';

// DYNAMIC: a worker task whose name comes from an input parameter (dynamicTaskNameParam, by default taskToExecute).
export const dynamicTask: TaskType = {
  types: ['DYNAMIC'],
  kind: 'worker',
  map(turn, wt) {
    const input = resolveInput(turn.state, wt.inputParameters, undefined, turn.log.jsonPathBudget(turn.env));
    const name = String(input[wt.dynamicTaskNameParam ?? 'taskToExecute'] ?? '');
    if (!name)
      return {
        invalid: `Cannot map a dynamic task based on the parameter and input. Parameter= ${wt.dynamicTaskNameParam}, input= ${JSON.stringify(input)}`,
        input,
      };
    if (!wt.taskDefinition && !turn.env.taskDef(name))
      return { invalid: `Invalid task specified. Cannot find task by name ${name} in the task definitions`, input };
    // The named task always goes to a worker's queue, whatever its name.
    return { input, taskType: name, taskDefName: name, startNow: false };
  },
};
