import type { ScriptOutcome } from '../script-requests';
import { scriptTaskFailureReason } from '../script-requests';
import type { TaskOutcome } from './task-type';

/**
 * How an INLINE or LAMBDA task ends on its script's outcome. Conductor's INLINE fails for good when the script
 * itself is at fault (TerminateWorkflowException); one stopped at the time limit is FAILED and may be retried.
 * LAMBDA is FAILED either way.
 */
export function scriptResult(outcome: ScriptOutcome, terminalOnScriptError: boolean): TaskOutcome {
  if (outcome.ok) return { end: { output: { result: outcome.value } } };
  const reason = scriptTaskFailureReason(outcome);
  const terminal = terminalOnScriptError && outcome.failure !== 'timeout' && outcome.failure !== 'busy';
  return { end: { output: { error: reason }, status: terminal ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED', reason } };
}
