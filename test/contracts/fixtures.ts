import { WorkflowDefSchema, WorkflowTaskSchema } from '../../src/model/definitions';
import type { Task, WorkflowRecord } from '../../src/model/execution';
import type { ExecutionCommit } from '../../src/store/ports';

/** Builders of valid execution records for tests; every field has a plain default, overrides win. */

/** 2024-01-01T00:00:00.000Z: fixture times are offsets from it. */
export const T0 = Date.UTC(2024, 0, 1);

const workflowTask = WorkflowTaskSchema.parse({ name: 'task_a', taskReferenceName: 'a', type: 'SIMPLE' });
const workflowDefinition = WorkflowDefSchema.parse({ name: 'fixture_wf', version: 1, tasks: [workflowTask] });

let seq = 0;
const nextId = (prefix: string): string => `${prefix}-${++seq}`;

export function makeWorkflowRecord(overrides: Partial<WorkflowRecord> = {}): WorkflowRecord {
  const startTime = overrides.startTime ?? overrides.createTime ?? T0;
  return {
    workflowId: nextId('wf'),
    status: 'RUNNING',
    createTime: startTime,
    startTime,
    updateTime: startTime,
    endTime: 0,
    lastRetriedTime: 0,
    input: {},
    output: {},
    taskToDomain: {},
    failedReferenceTaskNames: [],
    failedTaskNames: [],
    workflowDefinition,
    workflowName: workflowDefinition.name,
    workflowVersion: workflowDefinition.version,
    priority: 0,
    variables: {},
    ...overrides,
  };
}

export function makeTask(overrides: Partial<Task> = {}): Task {
  return {
    taskId: nextId('task'),
    taskType: 'task_a',
    taskDefName: 'task_a',
    referenceTaskName: 'a',
    status: 'SCHEDULED',
    inputData: {},
    outputData: {},
    workflowInstanceId: 'wf-0',
    workflowType: workflowDefinition.name,
    workflowPriority: 0,
    retryCount: 0,
    seq: 1,
    pollCount: 0,
    scheduledTime: T0,
    startTime: 0,
    endTime: 0,
    updateTime: T0,
    startDelayInSeconds: 0,
    retried: false,
    executed: false,
    callbackFromWorker: true,
    responseTimeoutSeconds: 3600,
    callbackAfterSeconds: 0,
    workflowTask,
    rateLimitPerFrequency: 0,
    rateLimitFrequencyInSeconds: 0,
    iteration: 0,
    ...overrides,
  };
}

/** A commit of `workflow` at `expectedRev`: nothing else written unless `parts` says so. */
export function makeCommit(workflow: WorkflowRecord, expectedRev: number, parts: Partial<ExecutionCommit> = {}): ExecutionCommit {
  return { workflow, upsertTasks: [], deleteTaskIds: [], outbox: [], expectedRev, ...parts };
}
