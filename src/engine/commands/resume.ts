import { decide } from '../decide';
import { Errors } from '../../model/named-errors';
import type { Turn } from '../state';

/** Resumes a paused workflow and decides (Conductor's WorkflowExecutor.resumeWorkflow). */
export function resumeWorkflow(turn: Turn): void {
  const wf = turn.state.workflow;
  if (wf.status !== 'PAUSED') throw Errors.WORKFLOW_NOT_PAUSED(wf.workflowId, wf.status);
  wf.status = 'RUNNING';
  wf.lastRetriedTime = turn.env.now;
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
  decide(turn);
}
