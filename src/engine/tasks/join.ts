import type { Task } from '../../model/execution';
import { isSuccessfulTask, isTerminalTask } from '../../model/statuses';
import { blueprintOf } from '../blueprint';
import type { Turn } from '../state';
import { isPassedPermissiveFailure } from '../permissive';
import { latestByRef } from '../task-lookup';
import { refSuffix, type TaskOutcome, type TaskType } from './task-type';

// JOIN: waits for the tasks of its joinOn (by default the last task of every branch of the fork before it),
// then completes with their outputs by reference name.

function joinOnOf(turn: Turn, t: Task): string[] {
  const joinOn = t.workflowTask.joinOn ?? [];
  if (joinOn.length > 0) return joinOn;
  // An empty joinOn waits for the last task of every branch of the fork before it.
  const bp = blueprintOf(turn.state.workflow.workflowDefinition);
  const fork = bp.forkBefore(t.workflowTask.taskReferenceName);
  return fork ? bp.branchEnds(fork.taskReferenceName) : [];
}

function evaluateJoin(turn: Turn, t: Task): TaskOutcome | undefined {
  const suffix = refSuffix(t);
  const joinOn = joinOnOf(turn, t);
  const branches: Task[] = new Array(joinOn.length);
  // Last branch first: workers take branches in the order they were queued, so the first one still open is
  // usually near the end, and a join of N branches costs O(1), not O(N), at each decision until the last one ends.
  for (let i = joinOn.length - 1; i >= 0; i--) {
    const x = latestByRef(turn.state.tasks, joinOn[i]! + suffix);
    if (!x || !isTerminalTask(x.status) || x.retried) return undefined;
    // The failing branch ends or retries the workflow itself; a failed permissive one waits here for the others.
    if (!isSuccessfulTask(x.status) && !isPassedPermissiveFailure(x)) return undefined;
    branches[i] = x;
  }
  const output: Record<string, unknown> = {};
  let withErrors = false;
  for (let i = 0; i < joinOn.length; i++) {
    const x = branches[i]!;
    if (x.status === 'COMPLETED_WITH_ERRORS') withErrors = true;
    if (x.outputData && Object.keys(x.outputData).length > 0) output[joinOn[i]!] = x.outputData;
    if (!isSuccessfulTask(x.status)) {
      // Every branch ended and a permissive one failed: the JOIN fails with the reasons of all failed ones, its
      // output holding the branches up to this one, as Conductor's Join.
      const failed = branches.filter((b) => !isSuccessfulTask(b.status));
      const reason = failed
        .map((b) => b.reasonForIncompletion)
        .filter((r) => r != null)
        .join(' ');
      return { end: { output, status: failed.some((b) => b.status !== 'CANCELED') ? 'FAILED' : 'CANCELED', reason } };
    }
  }
  return { end: { output, status: withErrors ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED' } };
}

export const joinTask: TaskType = {
  types: ['JOIN'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  reopenedWithPredecessors: true,
  joinsFork: true,
  // Conductor's JOIN mapper gives the task `{joinOn}` (as declared) as its input.
  map: (_turn, wt) => ({ input: { joinOn: wt.joinOn ?? [] } }),
  start: () => ({ wait: true }),
  evaluate: evaluateJoin,
};
