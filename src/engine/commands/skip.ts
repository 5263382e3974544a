import type { Task } from '../../model/execution';
import { blueprintOf } from '../blueprint';
import { decide } from '../decide';
import { Errors } from '../../model/named-errors';
import { jsonSize, taskPayloadProblem } from '../payload-size';
import { scheduleNext } from '../scheduling';
import type { Turn } from '../state';
import { makeTask } from '../task-factory';
import { latestByRef, pendingTaskByRef } from '../task-lookup';
import { markTerminal } from '../task-status';
import { childWorkflowOf, taskTypeOf } from '../tasks/registry';

// Skipping a task by reference: one not scheduled yet (Conductor's WorkflowExecutor.skipTaskFromWorkflow),
// or one the workflow waits on (SCHEDULED or IN_PROGRESS), which Conductor refuses and the interface asks for.

type Payload = Record<string, unknown> | null | undefined;

export function skipTask(turn: Turn, ref: string, input?: Payload, output?: Payload): void {
  const wf = turn.state.workflow;
  if (wf.status !== 'RUNNING') throw Errors.WORKFLOW_NOT_RUNNING(wf.workflowId, wf.status);
  const open = pendingTaskByRef(turn.state, ref);
  if (open) {
    skipOpenTask(turn, open, input, output);
    return;
  }
  skipUnscheduled(turn, ref, input, output);
}

/**
 * A task not scheduled yet gets a SKIPPED task that the decider passes over when its turn comes. As in
 * Conductor it is numbered 0 and so listed first, and it has no response timeout.
 */
function skipUnscheduled(turn: Turn, ref: string, input: Payload, output: Payload): void {
  const { state, env } = turn;
  const wf = state.workflow;
  const loc = blueprintOf(wf.workflowDefinition).find(ref);
  if (!loc) throw Errors.SKIP_UNKNOWN_TASK(ref, wf.workflowName);
  const done = latestByRef(state.tasks, ref);
  if (done) throw Errors.SKIP_ENDED_TASK(ref, wf.workflowId, done.status);
  const t = makeTask(turn, loc.task, { suffix: '', iteration: 0, input: input ?? {}, status: 'SKIPPED' });
  checkOutput(t, output, env.taskPayloadMaxBytes);
  t.outputData = output ?? {};
  t.seq = 0;
  t.responseTimeoutSeconds = 0;
  t.endTime = env.now;
  // A new list rather than an insertion: the task lookups are kept per list and assume appends.
  state.tasks = [t, ...state.tasks];
  turn.log.touch(t);
  decide(turn);
}

/**
 * A task the workflow waits on ends SKIPPED with the payload's output (and input, when given): it leaves its
 * queue (entry and lease), a SUB_WORKFLOW's child is terminated, and the workflow goes on from it. A late
 * result from its worker is refused (commands/task-result).
 */
function skipOpenTask(turn: Turn, t: Task, input: Payload, output: Payload): void {
  const wf = turn.state.workflow;
  if (!taskTypeOf(t).skippableWhileOpen) {
    throw Errors.SKIP_RUNNING_CONTROL_TASK(t.referenceTaskName, wf.workflowId, t.taskType);
  }
  checkOutput(t, output, turn.env.taskPayloadMaxBytes);
  if (input) t.inputData = input;
  const child = childWorkflowOf(t);
  // The child's id stays in the output, so the terminated child can still be found from the parent.
  t.outputData = { ...(child ? { subWorkflowId: child } : {}), ...(output ?? {}) };
  markTerminal(turn, t, 'SKIPPED');
  taskTypeOf(t).cancel?.(turn, t, `Parent task ${t.referenceTaskName} of workflow ${wf.workflowId} was skipped`);
  t.executed = true;
  scheduleNext(turn, t);
  decide(turn);
}

function checkOutput(t: Task, output: Payload, limit: number): void {
  const problem = output ? taskPayloadProblem(t, 'output', jsonSize(output), limit) : undefined;
  if (problem) throw Errors.TASK_PAYLOAD_TOO_LARGE(problem);
}
