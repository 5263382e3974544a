import { blueprintOf } from '../blueprint';
import { decide } from '../decide';
import { EngineError } from '../errors';
import type { Turn } from '../state';
import { makeTask } from '../task-factory';
import { latestByRef } from '../task-lookup';

/** Skip a task that has not been scheduled yet (Conductor's WorkflowExecutor.skipTaskFromWorkflow). */
export function skipTask(turn: Turn, ref: string, input?: Record<string, unknown> | null, output?: Record<string, unknown> | null): void {
  const { state, env } = turn;
  const wf = state.workflow;
  if (wf.status !== 'RUNNING') throw new EngineError('conflict', `The workflow ${wf.workflowId} is not running, status: ${wf.status}`);
  const loc = blueprintOf(wf.workflowDefinition).find(ref);
  if (!loc) throw new EngineError('invalid', `The task ${ref} does not exist in the definition of workflow ${wf.workflowName}`);
  if (latestByRef(state.tasks, ref)) throw new EngineError('conflict', `The task ${ref} has already been scheduled in workflow ${wf.workflowId}; only a task not yet scheduled can be skipped`);
  const t = makeTask(turn, loc.task, { suffix: '', iteration: 0, input: input ?? {}, status: 'SKIPPED' });
  t.outputData = output ?? {};
  t.endTime = env.now;
  state.tasks.push(t);
  turn.log.touch(t);
  decide(turn);
}
