import type { Task } from '../model/execution';
import { missingSecretsReason, type SecretService } from './secret-service';
import type { TaskService } from './task-service';

/**
 * Polled tasks as a worker receives them: `${workflow.secrets.NAME}` in the input replaced by the
 * secret (Conductor OSS substitutes secrets in the task a poll returns; the stored task keeps the
 * reference). A task naming a secret that does not exist is failed with the names (its retries
 * follow its definition) and not handed out.
 */
export async function revealForWorker(polled: Task[], secrets: SecretService | undefined, tasks: TaskService): Promise<Task[]> {
  if (!secrets || polled.length === 0) return polled;
  const out: Task[] = [];
  for (const t of polled) {
    let reason: string;
    try {
      const r = await secrets.reveal(t.inputData);
      if (r.missing.length === 0) {
        out.push(r.input === t.inputData ? t : { ...t, inputData: r.input });
        continue;
      }
      reason = missingSecretsReason(r.missing);
    } catch (e) {
      reason = `Secrets could not be read: ${(e as Error).message}`;
    }
    await tasks.update({ workflowInstanceId: t.workflowInstanceId, taskId: t.taskId, status: 'FAILED', reasonForIncompletion: reason, outputData: {} });
  }
  return out;
}
