import { z } from 'zod';

// Where an execution descends from: every start made by a workflow (SUB_WORKFLOW, START_WORKFLOW, its
// failure workflow) or by an event handler acting on a workflow's event inherits its starter's root and
// counts one generation more; a start through the API is a root of generation 0.

export const LineageSchema = z.object({
  /** The execution started through the API (or by a schedule, or by an event from outside) this one descends from. */
  rootWorkflowId: z.string().min(1),
  /** Starts between the root and this execution (0 for the root itself). */
  generation: z.number().int().min(0),
});
export type Lineage = z.infer<typeof LineageSchema>;

/** An execution's own lineage; a record without one is a root. */
export const lineageOf = (wf: { workflowId: string; rootWorkflowId?: string; generation?: number }): Lineage => ({
  rootWorkflowId: wf.rootWorkflowId ?? wf.workflowId,
  generation: wf.generation ?? 0,
});

/** The lineage of an execution started by one of lineage `starter`. */
export const childLineage = (starter: Lineage): Lineage => ({ rootWorkflowId: starter.rootWorkflowId, generation: starter.generation + 1 });
