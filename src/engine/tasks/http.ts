import type { TaskType } from './task-type';

// HTTP: Baton's own system-task worker polls it from its queue and makes the call, as a worker would.
export const httpTask: TaskType = {
  types: ['HTTP'],
  kind: 'queued',
  // Conductor's HTTP mapper adds the flag to the input.
  inputAdditions: (wt) => ({ asyncComplete: wt.asyncComplete ?? false }),
};
