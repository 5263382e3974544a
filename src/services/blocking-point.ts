import type { Task, Workflow } from '../model/execution';
import type { ReturnStrategy, SignalResponse } from '../model/signals';
import { isTerminalTask, isTerminalWorkflow } from '../model/statuses';
import { childWorkflowOf, isBlockingType } from '../engine/tasks/registry';
import type { ExecutionStore } from '../store/ports';
import type { ExecutionWaiter } from './execution-waiter';
import { withComputed } from './workflow-service';
import { workflowView } from '../model/payload-view';

// Where an execution waits for the outside world (execute, signal): the first pending blocking task
// (WAIT, HUMAN or YIELD, as the task-type registry says), looked for in the execution and then in its
// running sub-workflows. Execute and signal requests wait for one, and answer in Conductor's SignalResponse shape.

const MAX_DEPTH = 16;

/** One look at an execution tree. */
export interface TreeSnapshot {
  target: Workflow;
  blocking?: { workflow: Workflow; task: Task };
  /** Every execution looked at (the target and its running sub-workflows). */
  workflows: Workflow[];
  /** Ids to wait on: those executions, and sub-workflows about to start. */
  watch: string[];
}

async function loadWorkflow(store: ExecutionStore, id: string): Promise<Workflow | undefined> {
  const s = await store.load(id);
  return s ? { ...s.workflow, tasks: s.tasks.map(withComputed) } : undefined;
}

/** Loads the target and walks it in task order, descending into running sub-workflows where they stand. */
export async function snapshotTree(store: ExecutionStore, workflowId: string): Promise<TreeSnapshot | undefined> {
  const target = await loadWorkflow(store, workflowId);
  if (!target) return undefined;
  const snap: TreeSnapshot = { target, workflows: [], watch: [] };
  const seen = new Set<string>();
  const walk = async (w: Workflow, depth: number): Promise<boolean> => {
    seen.add(w.workflowId);
    snap.workflows.push(w);
    snap.watch.push(w.workflowId);
    for (const t of w.tasks) {
      if (t.retried || isTerminalTask(t.status)) continue;
      if (isBlockingType(t.taskType)) {
        snap.blocking = { workflow: w, task: t };
        return true;
      }
      const childId = childWorkflowOf(t);
      if (childId && !seen.has(childId) && depth < MAX_DEPTH) {
        const child = await loadWorkflow(store, childId);
        if (!child) snap.watch.push(childId);
        if (child && !isTerminalWorkflow(child.status) && (await walk(child, depth + 1))) return true;
      }
    }
    return false;
  };
  if (!isTerminalWorkflow(target.status)) await walk(target, 0);
  else {
    snap.workflows.push(target);
    snap.watch.push(target.workflowId);
  }
  return snap;
}

/** Whether a task named in `waitUntilTaskRef` has ended anywhere in the tree. */
export function refEnded(snap: TreeSnapshot, refs: string[]): boolean {
  if (refs.length === 0) return false;
  return snap.workflows.some((w) =>
    w.tasks.some((t) => isTerminalTask(t.status) && (refs.includes(t.referenceTaskName) || refs.includes(t.workflowTask.taskReferenceName))),
  );
}

/**
 * Waits until the target ends, blocks (a blocking task other than `exceptTaskId`), or a task of
 * `untilRefs` ends; at the deadline answers the state as it is, flagged as timed out.
 */
export async function waitForBlockingPoint(
  store: ExecutionStore,
  waiter: ExecutionWaiter,
  workflowId: string,
  opts: { untilRefs?: string[]; exceptTaskId?: string; deadline: number; signal?: AbortSignal },
): Promise<{ snap: TreeSnapshot; timedOut: boolean } | undefined> {
  let last: TreeSnapshot | undefined;
  const outcome = await waiter.until<TreeSnapshot | undefined>(
    async () => {
      const snap = await snapshotTree(store, workflowId);
      last = snap;
      if (!snap) return { done: true, value: undefined };
      const settled =
        isTerminalWorkflow(snap.target.status) ||
        (snap.blocking !== undefined && snap.blocking.task.taskId !== opts.exceptTaskId) ||
        refEnded(snap, opts.untilRefs ?? []);
      return settled ? { done: true, value: snap } : { done: false, watch: snap.watch };
    },
    opts.deadline,
    opts.signal,
  );
  const snap = outcome.value ?? last;
  return snap ? { snap, timedOut: outcome.timedOut } : undefined;
}

export function workflowRun(whole: Workflow) {
  const w = workflowView(whole);
  return {
    workflowId: w.workflowId,
    correlationId: w.correlationId,
    input: w.input,
    output: w.output,
    createdBy: w.createdBy,
    createTime: w.createTime,
    updateTime: w.updateTime,
    status: w.status,
    tasks: w.tasks,
    variables: w.variables,
    priority: w.priority,
  };
}

function taskRun(t: Task, withOutput: boolean) {
  return {
    taskType: t.taskType,
    taskId: t.taskId,
    referenceTaskName: t.referenceTaskName,
    retryCount: t.retryCount,
    taskDefName: t.taskDefName,
    workflowType: t.workflowType,
    status: t.status,
    input: t.inputData,
    ...(withOutput ? { output: t.outputData } : {}),
    workflowId: t.workflowInstanceId,
  };
}

/**
 * Conductor's SignalResponse: a flat object naming its shape in `responseType`. With nothing blocked,
 * BLOCKING_WORKFLOW shows the target, and a task strategy falls back to the target workflow (saying so
 * in `responseType`).
 */
export function signalResponse(strategy: ReturnStrategy, snap: TreeSnapshot, requestId: string | undefined, timedOut: boolean): SignalResponse {
  const base = {
    targetWorkflowId: snap.target.workflowId,
    targetWorkflowStatus: snap.target.status,
    ...(requestId ? { requestId } : {}),
    signalTimeout: timedOut,
  };
  const blocking = snap.blocking;
  if ((strategy === 'BLOCKING_TASK' || strategy === 'BLOCKING_TASK_INPUT') && blocking) {
    return { responseType: strategy, ...base, ...taskRun(blocking.task, strategy === 'BLOCKING_TASK') };
  }
  if (strategy === 'BLOCKING_WORKFLOW') return { responseType: strategy, ...base, ...workflowRun(blocking?.workflow ?? snap.target) };
  return { responseType: 'TARGET_WORKFLOW', ...base, ...workflowRun(snap.target) };
}
