import type { WorkflowStatus } from '../../model/statuses';
import type { TaskType } from './task-type';

// TERMINATE: ends the workflow with its terminationStatus, its workflowOutput as the workflow's output.
export const terminateTask: TaskType = {
  types: ['TERMINATE'],
  kind: 'system',
  selfCompleting: true,
  endsWorkflow: true,
  start(_turn, t) {
    const input = t.inputData;
    const status = String(input.terminationStatus ?? '');
    if (!['COMPLETED', 'FAILED', 'TERMINATED'].includes(status)) {
      return { end: { output: {}, status: 'FAILED', reason: `The termination status ${status} is not valid; use COMPLETED, FAILED or TERMINATED` } };
    }
    const wo = input.workflowOutput;
    const output = wo && typeof wo === 'object' && !Array.isArray(wo) ? (wo as Record<string, unknown>) : wo === undefined ? {} : { output: wo };
    const reason = (input.terminationReason as string | undefined) ?? `Workflow is ${status} by TERMINATE task: ${t.taskId}`;
    return {
      end: { output },
      ownsSuccessors: true,
      endWorkflow: {
        status: status as WorkflowStatus,
        reason,
        output,
        failed: status !== 'COMPLETED',
      },
    };
  },
};
