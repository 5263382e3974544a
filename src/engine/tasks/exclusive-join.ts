import type { Task } from '../../model/execution';
import { isSuccessfulTask, isTerminalTask } from '../../model/statuses';
import type { Turn } from '../state';
import { latestByRef } from '../task-lookup';
import { refSuffix, type TaskOutcome, type TaskType } from './task-type';

// EXCLUSIVE_JOIN: ends with the first of its joinOn tasks that ran (the branch a SWITCH took), or once
// nothing else is open, with one of its defaultExclusiveJoinTask.

const endWith = (x: Task): TaskOutcome => ({
  end: { output: { ...x.outputData }, status: isSuccessfulTask(x.status) ? 'COMPLETED' : 'FAILED', reason: x.reasonForIncompletion },
});

function evaluateExclusiveJoin(turn: Turn, t: Task): TaskOutcome | undefined {
  const suffix = refSuffix(t);
  for (const ref of t.workflowTask.joinOn ?? []) {
    const x = latestByRef(turn.state.tasks, ref + suffix);
    if (!x || x.status === 'SKIPPED') continue;
    if (!isTerminalTask(x.status) || x.retried) return undefined;
    return endWith(x);
  }
  const pending = turn.state.tasks.some((x) => x !== t && !x.retried && !isTerminalTask(x.status));
  if (pending) return undefined;
  for (const ref of t.workflowTask.defaultExclusiveJoinTask ?? []) {
    const x = latestByRef(turn.state.tasks, ref + suffix);
    if (x && isTerminalTask(x.status)) return endWith(x);
  }
  return { end: { output: {} } };
}

export const exclusiveJoinTask: TaskType = {
  types: ['EXCLUSIVE_JOIN'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  reopenedWithPredecessors: true,
  start: () => ({ wait: true }),
  evaluate: evaluateExclusiveJoin,
};
