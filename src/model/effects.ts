import type { StartWorkflowRequest } from './requests';
import type { WorkflowDef } from './definitions';
import type { WorkflowStatus } from './statuses';
import type { Lineage } from './lineage';

// What a decision owes the world after its state is persisted (the outbox). Every effect is
// idempotent: enqueue by task id, start by a deterministic workflow id, publish with an event id.

/** Identifies one task queue: Conductor's queue name is `[domain:]type[@namespace][-isolationGroup]` (QueueUtils.getQueueName). */
export interface QueueKey {
  taskType: string;
  domain?: string;
  isolationGroupId?: string;
  executionNameSpace?: string;
}

export const queueName = (q: QueueKey): string =>
  `${q.domain ? `${q.domain}:` : ''}${q.taskType}${q.executionNameSpace ? `@${q.executionNameSpace}` : ''}${q.isolationGroupId ? `-${q.isolationGroupId}` : ''}`;

/** The SUB_WORKFLOW task a child execution reports to. */
export interface ParentLink {
  workflowId: string;
  taskId: string;
  /** The child's sub-workflow depth: its parent's plus one (absent in outboxes written before depths were kept: 1). */
  depth?: number;
}

export type Effect =
  /** Make the task pollable from its queue at `visibleAt` (epoch ms). */
  | { kind: 'enqueue'; taskId: string; workflowId: string; queue: QueueKey; priority: number; visibleAt: number }
  /** Drop the queue entry of a task that no longer needs a worker. */
  | { kind: 'dequeue'; taskId: string; queue: QueueKey }
  /** Refresh the search index entry of the execution (and of the given tasks). */
  | { kind: 'index'; workflowId: string; taskIds: string[] }
  /** Start a workflow with a known id (sub-workflow, START_WORKFLOW, failure workflow); a second start of the same id is a no-op. */
  | {
      kind: 'startWorkflow';
      workflowId: string;
      request: StartWorkflowRequest & { workflowDef?: WorkflowDef | null };
      parent?: ParentLink;
      /** The START_WORKFLOW task that completes with the new id once it started, or fails saying why it did not. */
      starter?: { workflowId: string; taskId: string };
      /** The new execution's root and generation, its starter's plus one (absent in outboxes written before lineages were kept). */
      lineage?: Lineage;
      event?: string;
    }
  /** Tell a parent execution that its SUB_WORKFLOW task's child changed status. */
  | { kind: 'notifyParent'; parentWorkflowId: string; parentTaskId: string; childWorkflowId: string }
  /** Terminate a child execution (parent ended, or its SUB_WORKFLOW task was canceled). */
  | { kind: 'terminateWorkflow'; workflowId: string; reason: string }
  /** Ask a terminal child to retry or rerun itself as part of the parent's retry. */
  | { kind: 'retryWorkflow'; workflowId: string }
  /** Publish an event (EVENT task sink, status listener) with a unique id. */
  | { kind: 'publish'; eventId: string; sink: string; payload: Record<string, unknown>; lineage?: Lineage }
  /** Status-change notification for listeners and event handlers. */
  | {
      kind: 'statusChange';
      eventId: string;
      workflowId: string;
      workflowName: string;
      status: WorkflowStatus | string;
      /** Set for a task's status change. */
      task?: { taskId: string; taskRef: string; taskType: string };
      /** The publishing execution's lineage: a start an event handler makes on this event descends from it. */
      lineage?: Lineage;
    };
