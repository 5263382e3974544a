import { endWorkflow } from '../end-workflow';
import { Errors } from '../../model/named-errors';
import type { Turn } from '../state';

/** Terminates the workflow from the API: its failure workflow is not started, as in Conductor. */
export function terminateWorkflow(turn: Turn, reason: string | undefined): void {
  const wf = turn.state.workflow;
  if (wf.status === 'COMPLETED') throw Errors.WORKFLOW_COMPLETED(wf.workflowId);
  if (wf.status === 'TERMINATED') return;
  endWorkflow(turn, 'TERMINATED', reason, { byApi: true });
}
