import { z } from 'zod';

// Conductor's enums (WorkflowStatus, Task.Status, TaskType). Terminal/successful flags follow Task.Status and WorkflowStatus.
export const WorkflowStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED', 'PAUSED']);
export type WorkflowStatus = z.infer<typeof WorkflowStatus>;

export const TaskStatus = z.enum([
  'SCHEDULED',
  'IN_PROGRESS',
  'COMPLETED',
  'COMPLETED_WITH_ERRORS',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
  'TIMED_OUT',
  'CANCELED',
  'SKIPPED',
]);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const TaskResultStatus = z.enum(['IN_PROGRESS', 'FAILED', 'FAILED_WITH_TERMINAL_ERROR', 'COMPLETED', 'CANCELED']);
export type TaskResultStatus = z.infer<typeof TaskResultStatus>;

export const TimeoutPolicy = z.enum(['RETRY', 'TIME_OUT_WF', 'ALERT_ONLY']);
export const WorkflowTimeoutPolicy = z.enum(['TIME_OUT_WF', 'ALERT_ONLY']);
export const RetryLogic = z.enum(['FIXED', 'EXPONENTIAL_BACKOFF', 'LINEAR_BACKOFF']);

const TERMINAL_WF = new Set<WorkflowStatus>(['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED']);
/** Every task status but the two a task holds while it runs. */
const TERMINAL_TASK = new Set<TaskStatus>(TaskStatus.options.filter((s) => s !== 'SCHEDULED' && s !== 'IN_PROGRESS'));
/** Terminal statuses that let the workflow go on (Conductor's Task.Status isSuccessful, less the two open ones). */
const SUCCESSFUL_TASK = new Set<TaskStatus>(['COMPLETED', 'COMPLETED_WITH_ERRORS', 'SKIPPED']);
const RETRIABLE_TASK = new Set<TaskStatus>(['FAILED', 'TIMED_OUT']);

export const isTerminalWorkflow = (s: WorkflowStatus): boolean => TERMINAL_WF.has(s);
export const isTerminalTask = (s: TaskStatus): boolean => TERMINAL_TASK.has(s);
export const isSuccessfulTask = (s: TaskStatus): boolean => SUCCESSFUL_TASK.has(s);
export const isRetriableTask = (s: TaskStatus): boolean => RETRIABLE_TASK.has(s);
