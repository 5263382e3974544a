import { ownValue } from '../../lib/own-property';
import { describeScriptFailure } from '../script-requests';
import { chooseCase, failCase } from './switch-case';
import type { TaskType } from './task-type';

// DECISION (SWITCH's deprecated predecessor): the case is an input parameter or a JavaScript caseExpression.
export const decisionTask: TaskType = {
  types: ['DECISION'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  start(_turn, t) {
    const wt = t.workflowTask;
    if (wt.caseValueParam) return chooseCase(t, ownValue(t.inputData, wt.caseValueParam));
    return { wait: true, script: { purpose: 'switchCase', call: { kind: 'expression', source: wt.caseExpression ?? 'null', input: t.inputData } } };
  },
  finishScript: (_turn, t, _request, outcome) => (outcome.ok ? chooseCase(t, outcome.value) : failCase(describeScriptFailure(outcome))),
};
