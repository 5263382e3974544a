import type { TaskType } from './task-type';

// SET_VARIABLE: its input is merged into the workflow's variables (at most 256 KB of them, as in Conductor).
export const setVariableTask: TaskType = {
  types: ['SET_VARIABLE'],
  kind: 'system',
  selfCompleting: true,
  start(turn, t) {
    const vars = { ...turn.state.workflow.variables, ...t.inputData };
    if (JSON.stringify(vars).length > 256 * 1024) {
      return { end: { output: {}, status: 'FAILED_WITH_TERMINAL_ERROR', reason: 'The variables payload size is above the limit of 256 KB' } };
    }
    turn.state.workflow.variables = vars;
    turn.log.workflowChanged = true;
    return { end: { output: {} } };
  },
};
