import type { TaskType } from './task-type';

// HTTP: Baton's own system-task worker polls it from its queue and makes the call, as a worker would.
export const httpTask: TaskType = {
  types: ['HTTP'],
  kind: 'queued',
};
