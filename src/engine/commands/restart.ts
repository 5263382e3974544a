import type { WorkflowDef } from '../../model/definitions';
import { decide } from '../decide';
import { Errors } from '../../model/named-errors';
import type { Turn } from '../state';
import { deleteTasks, reopen, requireTerminal } from './reopen';

/** Restart from the first task with the same id (Conductor's WorkflowExecutor.restart). */
export function restartWorkflow(turn: Turn, latestDef?: WorkflowDef): void {
  requireTerminal(turn, 'restarted');
  const wf = turn.state.workflow;
  if (wf.status === 'COMPLETED' && wf.workflowDefinition.restartable === false) {
    throw Errors.WORKFLOW_NOT_RESTARTABLE(wf.workflowId, wf.workflowName, wf.workflowVersion);
  }
  if (latestDef) {
    wf.workflowDefinition = latestDef;
    wf.workflowVersion = latestDef.version;
  }
  deleteTasks(turn, () => false);
  reopen(turn);
  wf.createTime = turn.env.now;
  wf.startTime = turn.env.now;
  wf.lastRetriedTime = 0;
  decide(turn);
}
