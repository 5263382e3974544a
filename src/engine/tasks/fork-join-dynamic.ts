import { ownValue, setOwn } from '../../lib/own-property';
import type { WorkflowTask } from '../../model/definitions';
import type { Task } from '../../model/execution';
import { blueprintOf } from '../blueprint';
import type { Turn } from '../state';
import { latestByRef } from '../task-lookup';
import { errorMessage, scopeOf, type TaskType } from './task-type';

// FORK_JOIN_DYNAMIC (a FORK task): its branches come from its input, in one of Conductor's three forms
// (forkTaskName/forkTaskInputs, dynamicForkJoinTasksParam, dynamicForkTasksParam + input map).

/**
 * Why a dynamic fork of `width` branches may not start: wider than BATON_MAX_FORK_WIDTH, or more tasks than
 * BATON_MAX_TASKS_PER_EXECUTION once its branches and JOIN are added. Conductor has neither cap; a 50,000-branch
 * fork froze the server for seconds.
 */
function forkLimitProblem(turn: Turn, t: Task, width: number): string | undefined {
  const { maxForkWidth, maxTasksPerExecution } = turn.env;
  if (width > maxForkWidth) return `Dynamic fork ${t.referenceTaskName} has ${width} branches, over the limit of ${maxForkWidth} (BATON_MAX_FORK_WIDTH)`;
  const total = turn.state.tasks.length + width + 1;
  if (total > maxTasksPerExecution)
    return `Dynamic fork ${t.referenceTaskName} would bring workflow ${t.workflowInstanceId} to ${total} tasks, over the limit of ${maxTasksPerExecution} tasks per execution (BATON_MAX_TASKS_PER_EXECUTION)`;
  return undefined;
}

/** The branches (one task each) and their inputs by reference name; throws when the input is malformed. */
function branchesOf(t: Task): { tasks: WorkflowTask[]; inputs: Record<string, unknown> } {
  const wt = t.workflowTask;
  const input = t.inputData;
  if ('forkTaskName' in input || 'forkTaskWorkflow' in input || 'forkTaskInputs' in input) {
    const list = Array.isArray(input.forkTaskInputs) ? input.forkTaskInputs : [];
    const name = String(input.forkTaskName ?? input.forkTaskWorkflow ?? '');
    const type = input.forkTaskWorkflow ? 'SUB_WORKFLOW' : String(input.forkTaskType ?? 'SIMPLE');
    const tasks = list.map((_, i) => ({
      name,
      taskReferenceName: `_${name}_${i}`,
      type,
      inputParameters: {},
      ...(type === 'SUB_WORKFLOW' ? { subWorkflowParam: { name, version: (input.forkTaskWorkflowVersion as number | undefined) ?? undefined } } : {}),
    }));
    const inputs: Record<string, unknown> = {};
    list.forEach((v, i) => setOwn(inputs, `_${name}_${i}`, { ...(v && typeof v === 'object' && !Array.isArray(v) ? v : { input: v }), __index: i }));
    return { tasks, inputs };
  }
  if (wt.dynamicForkJoinTasksParam) {
    const spec = ownValue(input, wt.dynamicForkJoinTasksParam) as { dynamicTasks?: Array<Record<string, unknown>> } | undefined;
    const tasks: WorkflowTask[] = [];
    const inputs: Record<string, unknown> = {};
    for (const d of spec?.dynamicTasks ?? []) {
      const ref = String(d.referenceName);
      tasks.push({
        name: String(d.taskName),
        taskReferenceName: ref,
        type: String(d.type ?? 'SIMPLE'),
        inputParameters: {},
        ...(d.workflowName ? { subWorkflowParam: { name: String(d.workflowName) } } : {}),
      });
      setOwn(inputs, ref, d.input ?? {});
    }
    return { tasks, inputs };
  }
  const list = ownValue(input, wt.dynamicForkTasksParam ?? '');
  if (!Array.isArray(list)) throw new Error(`Input '${wt.dynamicForkTasksParam}' must be a list of tasks`);
  const tasks = list.map((x) => {
    const w = x as WorkflowTask;
    return { ...w, type: w.type ?? 'SIMPLE', inputParameters: w.inputParameters ?? {} };
  });
  const m = ownValue(input, wt.dynamicForkTasksInputParamName ?? '');
  if (m !== undefined && (m === null || typeof m !== 'object' || Array.isArray(m)))
    throw new Error(`Input '${wt.dynamicForkTasksInputParamName}' must be a map of reference name to input`);
  return { tasks, inputs: (m as Record<string, unknown>) ?? {} };
}

export const forkJoinDynamicTask: TaskType = {
  types: ['FORK_JOIN_DYNAMIC'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  taskTypeName: () => 'FORK',
  start(turn, t) {
    let branches: ReturnType<typeof branchesOf>;
    let limit: string | undefined;
    try {
      branches = branchesOf(t);
      limit = forkLimitProblem(turn, t, branches.tasks.length);
      if (!limit) {
        if (branches.tasks.some((x) => !x.taskReferenceName)) throw new Error('Every dynamic fork task needs a taskReferenceName');
        const refs = new Set<string>();
        for (const { taskReferenceName: ref } of branches.tasks) {
          if (refs.has(ref) || latestByRef(turn.state.tasks, ref)) throw new Error(`Duplicate task reference name ${ref} in dynamic fork`);
          refs.add(ref);
        }
      }
    } catch (e) {
      return { end: { output: { error: errorMessage(e) }, status: 'FAILED', reason: errorMessage(e) } };
    }
    if (limit) return { end: { output: { error: limit }, status: 'FAILED_WITH_TERMINAL_ERROR', reason: limit } };
    const { tasks, inputs } = branches;
    t.inputData = { ...t.inputData, forkedTasks: tasks.map((x) => x.taskReferenceName), forkedTaskDefs: tasks };
    const scope = scopeOf(t);
    const join = blueprintOf(turn.state.workflow.workflowDefinition).following(t.workflowTask.taskReferenceName);
    return {
      end: { output: {} },
      ownsSuccessors: true,
      spawn: tasks.map((task) => ({ task, input: (ownValue(inputs, task.taskReferenceName) as Record<string, unknown> | undefined) ?? {}, ...scope })),
      schedule: join ? [{ task: { ...join, joinOn: tasks.map((x) => x.taskReferenceName) }, ...scope }] : [],
    };
  },
};
