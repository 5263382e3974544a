import { scriptResult } from './script-result';
import type { TaskType } from './task-type';

// LAMBDA: `result` is what a JavaScript function body (scriptExpression) returns.
export const lambdaTask: TaskType = {
  types: ['LAMBDA'],
  kind: 'system',
  selfCompleting: true,
  start: (_turn, t) => ({
    wait: true,
    script: { purpose: 'taskResult', call: { kind: 'functionBody', source: String(t.inputData.scriptExpression ?? ''), input: t.inputData } },
  }),
  finishScript: (_turn, _t, _request, outcome) => scriptResult(outcome, false),
};
