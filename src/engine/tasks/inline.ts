import { scriptResult } from './script-result';
import { JAVASCRIPT_EVALUATORS, type TaskType } from './task-type';

// INLINE: `result` is an input parameter (`value-param`) or the value of a JavaScript expression.
export const inlineTask: TaskType = {
  types: ['INLINE'],
  kind: 'system',
  selfCompleting: true,
  start(_turn, t) {
    const input = t.inputData;
    const evaluatorType = (input.evaluatorType as string | undefined) ?? 'javascript';
    const expression = String(input.expression ?? '');
    if (evaluatorType === 'value-param') return { end: { output: { result: input[expression] } } };
    if (JAVASCRIPT_EVALUATORS.has(evaluatorType))
      return { wait: true, script: { purpose: 'taskResult', call: { kind: 'expression', source: expression, input } } };
    const reason = `Evaluator type ${evaluatorType} is not supported`;
    return { end: { output: { error: reason }, status: 'FAILED', reason } };
  },
  finishScript: (_turn, _t, _request, outcome) => scriptResult(outcome, true),
};
