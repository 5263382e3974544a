import { isSuccessfulTask, isTerminalTask, isTerminalWorkflow } from '../model/statuses';
import { endWorkflow } from './end-workflow';
import { handleFailure } from './failures';
import { isDueToStart } from './delayed-start';
import { permissiveFailureReason } from './permissive';
import { applyOutcome, scheduleNext, scheduleTask, startTask } from './scheduling';
import type { ExecutionState, Turn } from './state';
import { taskTypeOf } from './tasks/registry';
import { checkTaskTimeouts, checkWorkflowTimeout } from './timeouts';

// The decide loop (Conductor's DeciderService.decide): pure functions over an in-memory execution. Every
// change is recorded in the turn's log (tasks touched, effects owed); the actor persists the log, then
// runs the effects. Every command ends with it, and a reminder runs it alone (timeouts, WAIT deadlines).

const MAX_DECIDE_ROUNDS = 1000;

/** Moves the execution as far as it can go now: timeouts, re-evaluations, failures, successors, completion. */
export function decide(turn: Turn): void {
  const { state } = turn;
  const wf = state.workflow;
  if (isTerminalWorkflow(wf.status)) return;
  if (checkWorkflowTimeout(turn)) return;
  if (wf.status === 'PAUSED') return;
  if (state.tasks.length === 0) {
    const first = wf.workflowDefinition.tasks[0];
    if (first) scheduleTask(turn, first, '', 0);
  }
  let round = 0;
  for (; round < MAX_DECIDE_ROUNDS; round++) {
    if (isTerminalWorkflow(wf.status)) return;
    let progressed = false;
    // Iterate over a snapshot: scheduling appends new tasks, handled in the next round.
    const pending = state.tasks.filter((t) => !t.executed && !t.retried && t.status !== 'SKIPPED');
    for (const t of pending) {
      if (isTerminalWorkflow(wf.status)) return;
      const timeout = checkTaskTimeouts(turn, t);
      if (timeout === 'timeOutWorkflow') {
        endWorkflow(turn, 'TIMED_OUT', t.reasonForIncompletion, { lastTask: t, failedTask: t });
        return;
      }
      if (timeout === 'timedOut') progressed = true;
      if (isDueToStart(turn, t)) {
        startTask(turn, t);
        progressed = true;
      }
      if (!isTerminalTask(t.status)) {
        const outcome = taskTypeOf(t).evaluate?.(turn, t);
        if (outcome) {
          applyOutcome(turn, t, outcome);
          progressed = true;
        }
        if (!isTerminalTask(t.status)) continue;
      }
      if (!isSuccessfulTask(t.status)) {
        if (!handleFailure(turn, t)) return;
        progressed = true;
        if (t.retried) continue;
      }
      t.executed = true;
      turn.log.touch(t);
      progressed = true;
      if (taskTypeOf(t).endsWorkflow) continue; // ended the workflow already
      scheduleNext(turn, t);
    }
    if (!progressed) break;
  }
  if (!isTerminalWorkflow(wf.status) && isComplete(state)) {
    const permissive = permissiveFailureReason(state.tasks);
    if (permissive) endWorkflow(turn, 'FAILED', permissive);
    else endWorkflow(turn, 'COMPLETED', undefined);
  }
  // Still progressing at the round limit: the actor carries on in a new turn rather than block longer.
  if (round === MAX_DECIDE_ROUNDS) turn.log.unfinished = true;
}

/** All tasks terminal and processed, and every top-level task of the definition has run (DeciderService.checkForWorkflowCompletion). */
function isComplete(state: ExecutionState): boolean {
  if (state.tasks.length === 0) return false;
  const ran = new Set<string>();
  for (const t of state.tasks) {
    ran.add(t.workflowTask.taskReferenceName);
    if (t.retried) continue;
    if (!isTerminalTask(t.status)) return false;
    if (!t.executed && t.status !== 'SKIPPED') return false;
  }
  return state.workflow.workflowDefinition.tasks.every((d) => ran.has(d.taskReferenceName));
}
