import { childLineage, lineageOf } from '../../model/lineage';
import { generationRefusal } from '../lineage-limits';
import type { TaskType } from './task-type';

// START_WORKFLOW: starts another workflow (not a child: nothing comes back). Like Conductor's StartWorkflow it
// completes with the new id once the start happened, or fails saying why it did not; the start itself is an
// effect, so the task waits until the effect runner reports it (a start refused by a limit fails it).
export const startWorkflowTask: TaskType = {
  types: ['START_WORKFLOW'],
  kind: 'system',
  selfCompleting: true,
  startsAfterRetryDelay: true,
  endsAfterEffect: true,
  start(turn, t) {
    const req = t.inputData.startWorkflow as Record<string, unknown> | undefined;
    if (!req || typeof req !== 'object' || typeof req.name !== 'string') {
      return { end: { output: {}, status: 'FAILED', reason: 'Missing or invalid startWorkflow request in input' } };
    }
    const wf = turn.state.workflow;
    const lineage = childLineage(lineageOf(wf));
    const tooDeep = generationRefusal(req.name, lineage, turn.env.maxWorkflowGenerations);
    if (tooDeep) return { end: { output: {}, status: 'FAILED', reason: tooDeep } };
    const id = turn.env.derivedId(`start:${wf.workflowId}:${t.taskId}`);
    turn.log.emit({
      kind: 'startWorkflow',
      workflowId: id,
      starter: { workflowId: wf.workflowId, taskId: t.taskId },
      lineage,
      request: {
        name: req.name,
        version: typeof req.version === 'number' ? req.version : undefined,
        input: (req.input as Record<string, unknown>) ?? {},
        correlationId: (req.correlationId as string | undefined) ?? wf.correlationId,
        taskToDomain: (req.taskToDomain as Record<string, string> | undefined) ?? wf.taskToDomain,
        priority: typeof req.priority === 'number' ? req.priority : undefined,
      },
    });
    return { wait: true };
  },
};
