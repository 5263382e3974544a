import type { TaskStatus, WorkflowStatus } from '../model/statuses';

/**
 * What Baton measures, as one typed port. The composition root passes the Prometheus adapter
 * (prometheus-metrics.ts, the one module that knows prom-client); everything else records through
 * this interface, so the engine stays pure and tests can read what was recorded.
 *
 * Labels are names only (workflow names, task types, queue names, routes, operations), never ids:
 * their number stays bounded by the definitions, not by the traffic.
 */
export interface Metrics {
  /** An execution was created (Conductor's workflow_start_success). */
  workflowStarted(workflowName: string): void;
  /** An execution reached a terminal status; `durationMs` from its start to its end. */
  workflowEnded(workflowName: string, status: WorkflowStatus, durationMs: number): void;
  /** A worker task was handed to a worker; `waitMs` from scheduled to polled (Conductor's task_queue_wait). */
  taskPolled(taskType: string, waitMs: number): void;
  /** A worker's update ended a task it held; `executionMs` from polled to ended (Conductor's task_execution). */
  taskEnded(taskType: string, status: TaskStatus, executionMs: number): void;
  /** One HTTP request answered; `route` is the route template ('unmatched' when none matched). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** An actor was activated on this replica. */
  actorActivated(actorType: string): void;
  /** One actor turn (a call or a reminder) ran. */
  actorTurn(actorType: string, method: string, seconds: number): void;
  /** One store call (`store`: execution or metadata) finished, successfully or not. */
  storeOperation(store: string, operation: string, seconds: number): void;
  /** One search index call finished. */
  indexOperation(operation: string, seconds: number): void;
  /** Entries a queue partition held after its last turn; 0 when the partition left this replica. */
  queueDepth(partitionId: string, queueName: string, entries: number): void;
  /** The number of outbox effects owed by executions active on this replica moved by `delta`. */
  outboxChanged(delta: number): void;
}

/** Records nothing: the default where no Metrics is given (unit tests of actors and services). */
export const noMetrics: Metrics = {
  workflowStarted: () => undefined,
  workflowEnded: () => undefined,
  taskPolled: () => undefined,
  taskEnded: () => undefined,
  httpRequest: () => undefined,
  actorActivated: () => undefined,
  actorTurn: () => undefined,
  storeOperation: () => undefined,
  indexOperation: () => undefined,
  queueDepth: () => undefined,
  outboxChanged: () => undefined,
};
