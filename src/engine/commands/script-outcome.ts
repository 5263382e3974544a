import { isTerminalWorkflow } from '../../model/statuses';
import { decide } from '../decide';
import { applyOutcome } from '../scheduling';
import type { ScriptOutcome, ScriptRequest } from '../script-requests';
import type { ExecutionState, Turn } from '../state';
import { findTask } from '../task-lookup';
import { taskTypeOf } from '../tasks/registry';

// The outcome of a script a task asked for, evaluated off the event loop within the same turn.

/** Whether a script asked for in this turn still matters (its task may have been canceled meanwhile). */
export function scriptStillWanted(state: ExecutionState, request: ScriptRequest): boolean {
  const t = findTask(state, request.taskId);
  return !!t && t.status === 'IN_PROGRESS' && !t.retried && !isTerminalWorkflow(state.workflow.status);
}

/** The outcome of a script the turn asked for: the waiting task goes on, then the decider runs again. */
export function applyScriptOutcome(turn: Turn, request: ScriptRequest, outcome: ScriptOutcome): void {
  turn.log.settleScript(request);
  if (!scriptStillWanted(turn.state, request)) return;
  const t = findTask(turn.state, request.taskId)!;
  const next = taskTypeOf(t).finishScript?.(turn, t, request, outcome);
  if (next) applyOutcome(turn, t, next);
  decide(turn);
}
