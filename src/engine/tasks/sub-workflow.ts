import type { SubWorkflowParams } from '../../model/definitions';
import { childLineage, lineageOf } from '../../model/lineage';
import { generationRefusal } from '../lineage-limits';
import { resolveInput } from '../context';
import { ExpressionLimitError } from '../jsonpath-budget';
import type { Turn } from '../state';
import type { TaskType } from './task-type';

/** The child's name and version, either given as an expression (`${workflow.input.subwf}`), resolved as Conductor's SubWorkflowTaskMapper does; a reason when they do not resolve. */
function childNameAndVersion(turn: Turn, p: SubWorkflowParams, fallbackName: string): { name: string; version?: number } | { problem: string } {
  let resolved: Record<string, unknown>;
  try {
    resolved = resolveInput(turn.state, { name: p.name ?? fallbackName, version: p.version ?? null }, undefined, turn.log.jsonPathBudget(turn.env));
  } catch (e) {
    if (e instanceof ExpressionLimitError) return { problem: e.message };
    throw e;
  }
  const name = resolved.name;
  if (typeof name !== 'string' || name === '')
    return { problem: `The sub workflow name ${String(p.name)} resolved to ${JSON.stringify(name ?? null)}, not a workflow name` };
  const v = resolved.version;
  if (v === null || v === undefined || v === '') return { name };
  const version = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(version)) return { problem: `The sub workflow version ${String(p.version)} resolved to ${JSON.stringify(v)}, not a version number` };
  return { name, version };
}

// SUB_WORKFLOW: starts a child execution and waits for it; the child reports its end (commands/child-changed).
export const subWorkflowTask: TaskType = {
  types: ['SUB_WORKFLOW'],
  kind: 'system',
  startsAfterRetryDelay: true,
  skippableWhileOpen: true,
  followsChildWorkflow: true,
  // Conductor's SubWorkflow.cancel: the child is terminated with the parent's reason.
  cancel(turn, t, reason) {
    if (t.subWorkflowId) turn.log.emit({ kind: 'terminateWorkflow', workflowId: t.subWorkflowId, reason });
  },
  start(turn, t, rerun) {
    const wt = t.workflowTask;
    const wf = turn.state.workflow;
    const p = wt.subWorkflowParam ?? {};
    // Without a cap a workflow that starts itself nests for ever (16,000 executions in 6 s); Conductor has none.
    const depth = (wf.subWorkflowDepth ?? 0) + 1;
    if (depth > turn.env.maxSubWorkflowDepth) {
      const reason = `Sub workflow ${p.name ?? wt.name} not started: it would be nested ${depth} levels deep, over the limit of ${turn.env.maxSubWorkflowDepth} (BATON_MAX_SUBWORKFLOW_DEPTH)`;
      return { end: { output: {}, status: 'FAILED_WITH_TERMINAL_ERROR', reason } };
    }
    // A rerun starts a new child: the id of the one it replaces is taken.
    const childId = turn.env.derivedId(`subworkflow:${wf.workflowId}:${t.taskId}:${t.retryCount}${rerun ? `:${turn.env.now}` : ''}`);
    const inlineDef = p.workflowDefinition && typeof p.workflowDefinition === 'object' ? (p.workflowDefinition as never) : undefined;
    const child = childNameAndVersion(turn, p, (inlineDef as { name?: string } | undefined)?.name ?? wt.name);
    if ('problem' in child) return { end: { output: {}, status: 'FAILED_WITH_TERMINAL_ERROR', reason: child.problem } };
    const lineage = childLineage(lineageOf(wf));
    const tooDeep = generationRefusal(child.name, lineage, turn.env.maxWorkflowGenerations);
    if (tooDeep) return { end: { output: {}, status: 'FAILED_WITH_TERMINAL_ERROR', reason: tooDeep } };
    t.subWorkflowId = childId;
    t.outputData = { subWorkflowId: childId };
    turn.log.emit({
      kind: 'startWorkflow',
      workflowId: childId,
      parent: { workflowId: wf.workflowId, taskId: t.taskId, depth },
      lineage,
      request: {
        name: child.name,
        version: child.version,
        input: t.inputData,
        correlationId: wf.correlationId,
        taskToDomain: p.taskToDomain ?? wf.taskToDomain,
        priority: typeof p.priority === 'number' ? p.priority : wf.priority,
        workflowDef: inlineDef,
      },
    });
    return { wait: true };
  },
};
