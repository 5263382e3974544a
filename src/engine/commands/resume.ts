import { decide } from '../decide';
import { EngineError } from '../errors';
import type { Turn } from '../state';

/** Resumes a paused workflow and decides (Conductor's WorkflowExecutor.resumeWorkflow). */
export function resumeWorkflow(turn: Turn): void {
  const wf = turn.state.workflow;
  if (wf.status !== 'PAUSED') throw new EngineError('conflict', `The workflow ${wf.workflowId} is not paused, it is in ${wf.status} state.`);
  wf.status = 'RUNNING';
  wf.lastRetriedTime = turn.env.now;
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
  decide(turn);
}
