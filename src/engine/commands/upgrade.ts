import { ownValue } from '../../lib/own-property';
import type { WorkflowDef, WorkflowTask } from '../../model/definitions';
import type { Task } from '../../model/execution';
import { Errors } from '../../model/named-errors';
import { isTerminalTask, isTerminalWorkflow } from '../../model/statuses';
import { Blueprint, blueprintOf, type Location } from '../blueprint';
import { decide } from '../decide';
import { jsonSize, taskPayloadProblem } from '../payload-size';
import type { ExecutionState, Turn } from '../state';
import { addTask, makeTask } from '../task-factory';
import { taskTypeNameOf } from '../tasks/registry';
import { TaskTypeName } from '../tasks/names';

// Moving a running execution to another version of its definition (Orkes' POST /api/workflow/{id}/upgrade):
// the execution goes on from where it is, and the tasks the new version has before that position, which
// never ran, are added SKIPPED with the output the request gives for them.

type Payload = Record<string, unknown>;

export interface UpgradeArgs {
  def: WorkflowDef;
  workflowInput?: Payload | null;
  taskOutput?: Record<string, Payload> | null;
}

/** What an upgrade does to the execution, worked out before anything changes. */
interface UpgradePlan {
  /** Tasks of the new version before the current position that never ran, in definition order. */
  skipped: WorkflowTask[];
  /** Open tasks and the new version's node for each. */
  reassigned: Array<{ task: Task; node: WorkflowTask }>;
}

export function upgradeWorkflow(turn: Turn, args: UpgradeArgs): void {
  const wf = turn.state.workflow;
  if (isTerminalWorkflow(wf.status)) throw Errors.WORKFLOW_NOT_RUNNING(wf.workflowId, wf.status);
  if (args.def.name !== wf.workflowName) throw Errors.UPGRADE_OTHER_WORKFLOW(wf.workflowId, wf.workflowName, args.def.name);
  const plan = planUpgrade(turn.state, args.def);
  const outputs = args.taskOutput ?? {};
  const added = new Set(plan.skipped.map((wt) => wt.taskReferenceName));
  for (const ref of Object.keys(outputs)) {
    if (!added.has(ref)) throw Errors.UPGRADE_UNKNOWN_TASK_OUTPUT(ref, [...added].join(', '));
  }
  const tasks = plan.skipped.map((wt) => skippedTask(turn, wt, ownValue(outputs, wt.taskReferenceName) ?? {}));
  // Nothing above changed the execution: a refusal leaves it as it was.
  wf.workflowDefinition = args.def;
  wf.workflowVersion = args.def.version;
  if (args.workflowInput) wf.input = args.workflowInput;
  turn.log.workflowChanged = true;
  for (const { task, node } of plan.reassigned) {
    task.workflowTask = node;
    turn.log.touch(task);
  }
  for (const t of tasks) addTask(turn, t);
  decide(turn);
}

function skippedTask(turn: Turn, wt: WorkflowTask, output: Payload): Task {
  const t = makeTask(turn, wt, { suffix: '', iteration: 0, input: {}, status: 'SKIPPED' });
  const problem = taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes);
  if (problem) throw Errors.TASK_PAYLOAD_TOO_LARGE(problem);
  t.outputData = output;
  t.responseTimeoutSeconds = 0;
  t.endTime = turn.env.now;
  return t;
}

/**
 * Maps every task of the execution onto the new version, or refuses: an open task the new version lacks
 * or gives another type, an ended task whose type changed, a task added inside a running loop iteration.
 */
function planUpgrade(state: ExecutionState, def: WorkflowDef): UpgradePlan {
  const wf = state.workflow;
  const next = blueprintOf(def);
  const current = blueprintOf(wf.workflowDefinition);
  const ran = new Set<string>();
  const frontier = new Map<WorkflowTask[], number>();
  const active = new Set<WorkflowTask[]>();
  /** References with an open task (a DO_WHILE among them is a running loop). */
  const openRefs = new Set<string>();
  const reassigned: UpgradePlan['reassigned'] = [];
  for (const t of state.tasks) {
    const ref = t.workflowTask.taskReferenceName;
    const open = !isTerminalTask(t.status) && !t.retried;
    const loc = next.find(ref);
    if (!loc) {
      // Tasks a dynamic fork made are in neither version; ended tasks of removed references stay as history.
      if (open && current.find(ref)) throw Errors.UPGRADE_TASK_REMOVED(t.referenceTaskName, wf.workflowId, t.status, def.version, def.name);
      continue;
    }
    const type = taskTypeNameOf(t.workflowTask);
    const newType = taskTypeNameOf(loc.task);
    if (type !== newType) throw Errors.UPGRADE_TASK_TYPE_CHANGED(t.referenceTaskName, wf.workflowId, type, def.version, newType);
    ran.add(ref);
    frontier.set(loc.list, Math.max(frontier.get(loc.list) ?? -1, loc.index));
    if (open) {
      openRefs.add(ref);
      reassigned.push({ task: t, node: loc.task });
      for (const list of enclosingLists(next, loc)) active.add(list);
    }
  }
  const skipped: WorkflowTask[] = [];
  const consider = (list: WorkflowTask[], upTo: number): void => {
    for (const wt of list.slice(0, upTo)) {
      if (ran.has(wt.taskReferenceName)) continue;
      const loop = outerLoop(next, wt.taskReferenceName);
      // A loop's iterations carry suffixes no added task could know: inside a running loop, refuse; inside an ended one, nothing to add.
      if (loop && openRefs.has(loop)) throw Errors.UPGRADE_INSIDE_LOOP(wt.taskReferenceName, loop, def.version);
      if (!loop) skipped.push(wt);
    }
  };
  for (const [list, at] of frontier) {
    // A list with nothing open has been left behind: what the new version puts after its last task is behind the position too.
    consider(list, active.has(list) ? at : list.length);
  }
  // A branch the new version adds to a fork that started already would never be scheduled: it is behind the position.
  for (const t of state.tasks) {
    if (t.workflowTask.type !== TaskTypeName.FORK_JOIN) continue;
    const fork = next.find(t.workflowTask.taskReferenceName)?.task;
    for (const branch of fork?.forkTasks ?? []) if (!frontier.has(branch)) consider(branch, branch.length);
  }
  return { skipped: [...new Set(skipped)], reassigned };
}

/** The list holding `loc` and every list above it, up to the root. */
function enclosingLists(bp: Blueprint, loc: Location): WorkflowTask[][] {
  const lists = [loc.list];
  for (let at = loc.parent && bp.find(loc.parent.taskReferenceName); at; at = at.parent && bp.find(at.parent.taskReferenceName)) lists.push(at.list);
  return lists;
}

/** The outermost DO_WHILE around `ref`, by reference, when there is one. */
function outerLoop(bp: Blueprint, ref: string): string | undefined {
  let loop: string | undefined;
  for (let at = bp.find(ref); at?.parent; at = bp.find(at.parent.taskReferenceName)) if (at.kind === 'loop') loop = at.parent.taskReferenceName;
  return loop;
}
