import { isTerminalWorkflow } from '../../model/statuses';
import { Errors } from '../../model/named-errors';
import type { Turn } from '../state';

/** Pauses a running workflow: no task is scheduled until it resumes (Conductor's WorkflowExecutor.pauseWorkflow). */
export function pauseWorkflow(turn: Turn): void {
  const wf = turn.state.workflow;
  if (isTerminalWorkflow(wf.status)) throw Errors.WORKFLOW_ENDED(wf.workflowId);
  if (wf.status === 'PAUSED') return;
  wf.status = 'PAUSED';
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
}
