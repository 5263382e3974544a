import type { WorkflowService } from './workflow-service';

// The actions that act on one execution by id, shared by the bulk routes (/api/workflow/bulk) and batches by query.

export interface ActionOptions {
  /** Recorded by terminate. */
  reason?: string;
  /** restart: run the latest version of the definition. */
  useLatestDefinitions?: boolean;
  /** remove: keep the search entry (Conductor's archiveWorkflow, true by default). */
  archive?: boolean;
}

export type ExecutionActionName = 'pause' | 'resume' | 'restart' | 'retry' | 'rerun' | 'terminate' | 'remove';
export type ExecutionAction = (workflowId: string, o: ActionOptions) => Promise<unknown>;

export function executionActions(w: () => WorkflowService): Record<ExecutionActionName, ExecutionAction> {
  return {
    pause: (id) => w().pause(id),
    resume: (id) => w().resume(id),
    restart: (id, o) => w().restart(id, o.useLatestDefinitions ?? false),
    // Conductor's bulk retry never descends into sub-workflows.
    retry: (id) => w().retry(id, false),
    // From the start, with the execution's own input (an empty RerunWorkflowRequest).
    rerun: (id) => w().rerun(id, {}),
    terminate: (id, o) => w().terminate(id, o.reason),
    remove: (id, o) => w().remove(id, o.archive ?? true),
  };
}
