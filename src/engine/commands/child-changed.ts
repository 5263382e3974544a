import { isTerminalTask, isTerminalWorkflow, type TaskStatus, type WorkflowStatus } from '../../model/statuses';
import { decide } from '../decide';
import { jsonSize, taskPayloadProblem } from '../payload-size';
import type { Turn } from '../state';
import { findTask } from '../task-lookup';
import { markTerminal } from '../task-status';
import { childWorkflowOf } from '../tasks/registry';
import { reopen } from './reopen';

/** A child workflow of a SUB_WORKFLOW task reached a new status. */
export function childChanged(
  turn: Turn,
  taskId: string,
  child: {
    workflowId: string;
    status: WorkflowStatus;
    output: Record<string, unknown>;
    reasonForIncompletion?: string;
    workflowName: string;
    workflowVersion: number;
  },
): void {
  const t = findTask(turn.state, taskId);
  // A skipped SUB_WORKFLOW task no longer follows its child, even one retried later.
  if (!t || childWorkflowOf(t) !== child.workflowId || t.status === 'SKIPPED') return;
  if (child.status === 'RUNNING' || child.status === 'PAUSED') {
    if (isTerminalTask(t.status)) {
      // The child was retried or restarted: the parent follows it, as in Conductor.
      t.status = 'IN_PROGRESS';
      t.reasonForIncompletion = undefined;
      t.endTime = 0;
      t.executed = false;
      t.retried = false;
      t.updateTime = turn.env.now;
      turn.log.touch(t);
      const wf = turn.state.workflow;
      if (isTerminalWorkflow(wf.status)) {
        reopen(turn);
        // Conductor walks up the whole chain (WorkflowExecutor.updateAndPushParents): this workflow's own parent follows it too.
        if (wf.parentWorkflowId && wf.parentWorkflowTaskId) {
          turn.log.emit({ kind: 'notifyParent', parentWorkflowId: wf.parentWorkflowId, parentTaskId: wf.parentWorkflowTaskId, childWorkflowId: wf.workflowId });
        }
      }
    }
    return;
  }
  if (isTerminalTask(t.status) || isTerminalWorkflow(turn.state.workflow.status)) return;
  const output = { ...t.outputData, ...child.output, subWorkflowId: child.workflowId };
  // A workflow's output may be larger than a task's: over the task limit, the SUB_WORKFLOW task fails with the reason.
  const oversized = taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes);
  if (oversized) {
    t.outputData = { subWorkflowId: child.workflowId };
    markTerminal(turn, t, 'FAILED_WITH_TERMINAL_ERROR', oversized);
    decide(turn);
    return;
  }
  t.outputData = output;
  const map: Record<string, TaskStatus> = { COMPLETED: 'COMPLETED', FAILED: 'FAILED', TERMINATED: 'CANCELED', TIMED_OUT: 'TIMED_OUT' };
  const status = map[child.status] ?? 'FAILED';
  markTerminal(
    turn,
    t,
    status,
    status === 'COMPLETED'
      ? undefined
      : `Sub workflow ${child.workflowName}.${child.workflowVersion}/${child.workflowId} failure reason: ${child.reasonForIncompletion ?? ''}`,
  );
  decide(turn);
}
