import type { Task } from '../../model/execution';
import { parseWaitDuration, parseWaitUntil } from '../durations';
import { errorMessage, type TaskType } from './task-type';

// WAIT: waits for an update from outside, or until its `duration` has passed or its `until` time came.

/** When a WAIT task ends by itself, if it does. */
const waitDeadline = (t: Task): number | undefined => (t.taskType === 'WAIT' && t.status === 'IN_PROGRESS' && t.waitTimeout ? t.waitTimeout : undefined);

export const waitTask: TaskType = {
  types: ['WAIT'],
  kind: 'system',
  blocking: true,
  startsAfterRetryDelay: true,
  skippableWhileOpen: true,
  start(turn, t) {
    const input = t.inputData;
    try {
      if (input.duration !== undefined && input.duration !== null && input.duration !== '') {
        t.waitTimeout = turn.env.now + parseWaitDuration(String(input.duration)) * 1000;
      } else if (input.until !== undefined && input.until !== null && input.until !== '') {
        t.waitTimeout = parseWaitUntil(String(input.until));
      }
      if (t.waitTimeout !== undefined) t.callbackAfterSeconds = Math.max(0, Math.ceil((t.waitTimeout - turn.env.now) / 1000));
    } catch (e) {
      return { end: { output: {}, status: 'FAILED_WITH_TERMINAL_ERROR', reason: errorMessage(e) } };
    }
    return { wait: true };
  },
  evaluate(turn, t) {
    if (t.waitTimeout !== undefined && t.waitTimeout > 0 && turn.env.now >= t.waitTimeout) return { end: { output: t.outputData ?? {} } };
    return undefined;
  },
  deadline: waitDeadline,
};
