import type { Task } from '../model/execution';
import type { SchemaEnforcer } from './schema-enforcer';
import type { TaskService } from './task-service';

/**
 * Polled tasks whose input conforms to their task definition's input schema. One that does not is
 * failed with the violations (its retries follow its definition) and not handed to the worker.
 */
export async function conformingInputs(polled: Task[], enforcer: SchemaEnforcer | undefined, tasks: TaskService): Promise<Task[]> {
  if (!enforcer || polled.length === 0) return polled;
  const out: Task[] = [];
  for (const t of polled) {
    const problem = await enforcer.taskInputProblem(t);
    if (!problem) out.push(t);
    else await tasks.update({ workflowInstanceId: t.workflowInstanceId, taskId: t.taskId, status: 'FAILED', reasonForIncompletion: problem, outputData: {} });
  }
  return out;
}
