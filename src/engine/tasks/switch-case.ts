import type { Task } from '../../model/execution';
import { ownValue } from '../../lib/own-property';
import { scopeOf, type TaskOutcome } from './task-type';

// What SWITCH and DECISION share: a case value picks a branch (Conductor's Switch / Decision tasks).

const caseKey = (v: unknown): string => (v === null || v === undefined ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The task found its case value: it completes and its branch (or the default one) starts. */
export function chooseCase(t: Task, value: unknown): TaskOutcome {
  const wt = t.workflowTask;
  const key = caseKey(value);
  const chosen = ownValue(wt.decisionCases, key);
  const output = t.taskType === 'DECISION' ? { caseOutput: [key] } : { evaluationResult: [key], selectedCase: chosen ? key : 'defaultCase' };
  const branch = chosen ?? wt.defaultCase;
  const first = branch?.[0];
  return { end: { output }, ownsSuccessors: true, ...(first ? { schedule: [{ task: first, ...scopeOf(t) }] } : { scheduleSuccessor: true }) };
}

export function failCase(message: string): TaskOutcome {
  return { end: { output: { error: message }, status: 'FAILED', reason: `Error evaluating the expression: ${message}` } };
}
