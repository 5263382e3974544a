import type { TaskType } from './task-type';

// SUB_WORKFLOW: starts a child execution and waits for it; the child reports its end (commands/child-changed).
export const subWorkflowTask: TaskType = {
  types: ['SUB_WORKFLOW'],
  kind: 'system',
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
    t.subWorkflowId = childId;
    t.outputData = { subWorkflowId: childId };
    turn.log.emit({
      kind: 'startWorkflow',
      workflowId: childId,
      parent: { workflowId: wf.workflowId, taskId: t.taskId, depth },
      request: {
        name: p.name ?? (inlineDef as { name?: string } | undefined)?.name ?? wt.name,
        version: p.version ?? undefined,
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
