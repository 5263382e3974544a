import { mapWorkerTask } from './simple';
import type { TaskType } from './task-type';

// YIELD: a worker task (it needs a task definition) at which an execution waits for a signal.
export const yieldTask: TaskType = {
  types: ['YIELD'],
  kind: 'worker',
  blocking: true,
  map: mapWorkerTask,
};
