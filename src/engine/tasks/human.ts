import type { TaskType } from './task-type';

// HUMAN: waits IN_PROGRESS for an update from outside (a person, through the API).
export const humanTask: TaskType = {
  types: ['HUMAN'],
  kind: 'system',
  blocking: true,
  skippableWhileOpen: true,
  start: () => ({ wait: true }),
};
