import type { TaskDef } from '../model/definitions';
import type { Task } from '../model/execution';
import { isTerminalTask } from '../model/statuses';
import { taskDeadlines, workflowDeadline, type TaskDeadline } from './deadlines';
import { endWorkflow } from './end-workflow';
import type { Turn } from './state';
import { taskDefOf } from './task-factory';
import { markTerminal } from './task-status';

// Applying the deadlines that passed, in Conductor's words.

function timeoutReason(t: Task, def: TaskDef, d: TaskDeadline): string {
  switch (d.kind) {
    case 'timeout':
      return `Task timed out after ${def.timeoutSeconds} seconds. Timeout configured as ${def.timeoutSeconds} seconds. Timeout policy configured to ${def.timeoutPolicy}`;
    case 'responseTimeout':
      return `responseTimeout: ${t.responseTimeoutSeconds} exceeded for the taskId: ${t.taskId} with Task Status: ${t.status}`;
    case 'pollTimeout':
      return `Task poll timed out after ${def.pollTimeoutSeconds ?? 0} seconds. Timeout policy configured to ${def.timeoutPolicy}`;
  }
}

/** Times the task out at the first of its deadlines that passed, as Conductor's DeciderService does. */
export function checkTaskTimeouts(turn: Turn, t: Task): 'none' | 'timedOut' | 'timeOutWorkflow' {
  if (isTerminalTask(t.status)) return 'none';
  const def = taskDefOf(turn, t);
  for (const d of taskDeadlines(t, def)) {
    if (turn.env.now < d.at) continue;
    markTerminal(turn, t, 'TIMED_OUT', timeoutReason(t, def, d));
    return d.timesOutWorkflow ? 'timeOutWorkflow' : 'timedOut';
  }
  return 'none';
}

/** Ends a running workflow whose own timeout passed; true when it did. */
export function checkWorkflowTimeout(turn: Turn): boolean {
  const wf = turn.state.workflow;
  const at = workflowDeadline(wf);
  if (at === undefined || turn.env.now < at) return false;
  const def = wf.workflowDefinition;
  endWorkflow(
    turn,
    'TIMED_OUT',
    `Workflow timed out after ${def.timeoutSeconds} seconds. Timeout configured as ${def.timeoutSeconds} seconds. Timeout policy configured to ${def.timeoutPolicy}`,
  );
  return true;
}
