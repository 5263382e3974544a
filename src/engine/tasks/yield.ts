import type { TaskType } from './task-type';

// YIELD (Orkes' operator): no task definition and no worker; it waits IN_PROGRESS until a signal ends it.
export const yieldTask: TaskType = {
  types: ['YIELD'],
  kind: 'system',
  blocking: true,
  skippableWhileOpen: true,
  start: () => ({ wait: true }),
};
