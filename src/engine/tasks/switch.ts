import { ownValue } from '../../lib/own-property';
import { describeScriptFailure } from '../script-requests';
import { chooseCase, failCase } from './switch-case';
import { JAVASCRIPT_EVALUATORS, type TaskType } from './task-type';

// SWITCH: a case value from an input parameter (`value-param`) or a JavaScript expression picks a branch.
export const switchTask: TaskType = {
  types: ['SWITCH'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  start(_turn, t) {
    const wt = t.workflowTask;
    const evaluatorType = wt.evaluatorType ?? 'javascript';
    if (evaluatorType === 'value-param') return chooseCase(t, ownValue(t.inputData, wt.expression ?? ''));
    if (JAVASCRIPT_EVALUATORS.has(evaluatorType))
      return { wait: true, script: { purpose: 'switchCase', call: { kind: 'expression', source: wt.expression ?? '', input: t.inputData } } };
    return failCase(`Evaluator type ${evaluatorType} is not supported`);
  },
  finishScript: (_turn, t, _request, outcome) => (outcome.ok ? chooseCase(t, outcome.value) : failCase(describeScriptFailure(outcome))),
};
