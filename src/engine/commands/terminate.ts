import { endWorkflow } from '../end-workflow';
import { EngineError } from '../errors';
import type { Turn } from '../state';

/** Terminates the workflow from the API: its failure workflow is not started, as in Conductor. */
export function terminateWorkflow(turn: Turn, reason: string | undefined): void {
  const wf = turn.state.workflow;
  if (wf.status === 'COMPLETED') throw new EngineError('conflict', `Cannot terminate a COMPLETED workflow ${wf.workflowId}`);
  if (wf.status === 'TERMINATED') return;
  endWorkflow(turn, 'TERMINATED', reason, { byApi: true });
}
