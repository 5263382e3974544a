import type { Logger } from 'pino';
import type { TaskCompletionMessage } from '../events/dapr/task-completion-message';
import type { ActorHost } from '../runtime/ports';
import { workflowActor } from '../actors/protocol/workflow-protocol';
import { errorEntry } from '../services/error-catalogue';

/**
 * Applies a task completion another service published (e.g. a HUMAN task decided elsewhere) to its
 * WorkflowActor, addressed by task id or by reference name. Rejections that no redelivery can change
 * (unknown workflow, no such pending task, invalid transition) are logged and acknowledged; anything
 * else throws, so the broker redelivers.
 */
export const completionHandler =
  (host: ActorHost, log: Pick<Logger, 'warn'>) =>
  async (m: TaskCompletionMessage, eventId: string): Promise<void> => {
    const target = m.taskId !== undefined ? { taskId: m.taskId } : { ref: m.taskRefName };
    try {
      const taskId = await workflowActor(host, m.workflowId).updateExternal({
        ...target,
        status: m.status,
        output: m.output ?? {},
        workerId: m.workerId,
      });
      if (!taskId) log.warn({ eventId, workflowId: m.workflowId, ...target }, 'task completion names no pending task; acknowledged');
    } catch (err) {
      const known = errorEntry(err);
      if (known && known.status < 500) {
        log.warn({ err, eventId, workflowId: m.workflowId, ...target }, 'task completion rejected; acknowledged');
        return;
      }
      throw err;
    }
  };
