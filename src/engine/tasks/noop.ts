import type { TaskType } from './task-type';

// NOOP: completes as soon as it is scheduled.
export const noopTask: TaskType = {
  types: ['NOOP'],
  kind: 'system',
  selfCompleting: true,
  start: () => ({ end: { output: {} } }),
};
