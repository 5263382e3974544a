import type { TaskType } from './task-type';

// START_WORKFLOW: starts another workflow (not a child: nothing comes back) and completes with its id.
export const startWorkflowTask: TaskType = {
  types: ['START_WORKFLOW'],
  kind: 'system',
  selfCompleting: true,
  start(turn, t) {
    const req = t.inputData.startWorkflow as Record<string, unknown> | undefined;
    if (!req || typeof req !== 'object' || typeof req.name !== 'string') {
      return { end: { output: {}, status: 'FAILED', reason: 'Missing or invalid startWorkflow request in input' } };
    }
    const wf = turn.state.workflow;
    const id = turn.env.derivedId(`start:${wf.workflowId}:${t.taskId}`);
    turn.log.emit({
      kind: 'startWorkflow',
      workflowId: id,
      request: {
        name: req.name,
        version: typeof req.version === 'number' ? req.version : undefined,
        input: (req.input as Record<string, unknown>) ?? {},
        correlationId: (req.correlationId as string | undefined) ?? wf.correlationId,
        taskToDomain: (req.taskToDomain as Record<string, string> | undefined) ?? wf.taskToDomain,
        priority: typeof req.priority === 'number' ? req.priority : undefined,
      },
    });
    return { end: { output: { workflowId: id } } };
  },
};
