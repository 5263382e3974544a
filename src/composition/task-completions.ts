import type { Logger } from 'pino';
import { EngineError } from '../engine/errors';
import type { TaskCompletionMessage } from '../events/dapr/task-completion-message';
import type { ActorHost } from '../runtime/ports';
import { ApiError } from '../services/errors';

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
      const taskId = await host.invoke<string | null>('WorkflowActor', m.workflowId, 'updateExternal', {
        ...target,
        status: m.status,
        output: m.output ?? {},
        workerId: m.workerId,
      });
      if (!taskId) log.warn({ eventId, workflowId: m.workflowId, ...target }, 'task completion names no pending task; acknowledged');
    } catch (err) {
      if (err instanceof EngineError || (err instanceof ApiError && err.status < 500)) {
        log.warn({ err, eventId, workflowId: m.workflowId, ...target }, 'task completion rejected; acknowledged');
        return;
      }
      throw err;
    }
  };
