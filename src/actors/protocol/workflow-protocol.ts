import { z } from 'zod';
import type { WorkflowDef } from '../../model/definitions';
import type { Task, Workflow } from '../../model/execution';
import type { StartWorkflowRequest } from '../../model/requests';
import { LineageSchema } from '../../model/lineage';
import { TaskResultSchema, RerunWorkflowRequestSchema } from '../../model/requests';
import { TaskResultStatus, WorkflowStatus } from '../../model/statuses';
import type { ActorHost } from '../../runtime/ports';
import { defineActor, type Client } from './protocol';

// The calls of a WorkflowActor (one per execution). Definitions and start requests were checked when
// they entered Baton (registration, the start route): here only their shape as objects is.

const jsonObject = z.record(z.string(), z.unknown());
const object = <T>() => z.custom<T>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'expected an object');
const none = z.undefined().or(z.null()).optional();
const nothing = z.void();

export const StartArgSchema = z.object({
  workflowId: z.string().min(1),
  /** The id was just generated at random: no stored state can exist. */
  fresh: z.boolean().optional(),
  def: object<WorkflowDef>(),
  request: object<StartWorkflowRequest>(),
  parent: z.object({ workflowId: z.string(), taskId: z.string(), depth: z.number().int().optional() }).optional(),
  lineage: LineageSchema.optional(),
  event: z.string().optional(),
});
export type StartArg = z.infer<typeof StartArgSchema>;

export const ChildChangedArgSchema = z.object({
  taskId: z.string(),
  child: z.object({
    workflowId: z.string(),
    status: WorkflowStatus,
    output: jsonObject,
    reasonForIncompletion: z.string().optional(),
    workflowName: z.string(),
    workflowVersion: z.number(),
  }),
});
export type ChildChangedArg = z.infer<typeof ChildChangedArgSchema>;

/** Completion of a task addressed by id or by reference, its body merged into the output. */
export const ExternalUpdateArgSchema = z.object({
  ref: z.string().optional(),
  taskId: z.string().optional(),
  status: TaskResultStatus,
  output: jsonObject,
  workerId: z.string().optional(),
});
export type ExternalUpdateArg = z.infer<typeof ExternalUpdateArgSchema>;

export const UpdateOutcomeSchema = z.enum(['applied', 'ignored']);
export type UpdateOutcome = z.infer<typeof UpdateOutcomeSchema>;

export const WorkflowCalls = defineActor('WorkflowActor', {
  /** Creates the execution; a second start of the same id is a no-op. Answers the id. */
  start: { arg: StartArgSchema, result: z.string() },
  update: { arg: TaskResultSchema, result: UpdateOutcomeSchema },
  /**
   * update-v2: also answers the type and domain of the updated task (to poll the next one), and the next
   * task of that queue when this update scheduled it and it was handed to the same worker at once.
   */
  updateAndLocate: {
    arg: TaskResultSchema,
    result: z.object({ outcome: UpdateOutcomeSchema, taskType: z.string().optional(), domain: z.string().optional(), next: object<Task>().nullish() }),
  },
  /** Answers the id of the task it completed, null when none was pending. */
  updateExternal: { arg: ExternalUpdateArgSchema, result: z.string().nullable() },
  /**
   * A poll hands the task to a worker; null when it is no longer pollable. `claimId` makes a repeated call (its
   * answer lost, so the outcome is unknown) answer the task that call claimed instead of null.
   */
  claim: { arg: z.object({ taskId: z.string(), workerId: z.string().optional(), claimId: z.string().optional() }), result: object<Task>().nullable() },
  /** A claimed queued system task its worker never started goes back to its queue (that worker is stopping). */
  release: { arg: z.object({ taskId: z.string() }), result: z.boolean() },
  pause: { arg: none, result: nothing },
  /** Answers how many tasks it made pollable now. */
  resetCallbacks: { arg: none, result: z.number() },
  resume: { arg: none, result: nothing },
  terminate: { arg: z.object({ reason: z.string().optional() }).optional(), result: nothing },
  retry: { arg: none, result: nothing },
  restart: { arg: z.object({ def: object<WorkflowDef>().optional() }).optional(), result: nothing },
  /** Answers the execution's id. */
  rerun: { arg: RerunWorkflowRequestSchema, result: z.string() },
  /** Moves the execution to another version of its definition (Orkes' upgrade). */
  upgrade: {
    arg: z.object({ def: object<WorkflowDef>(), workflowInput: jsonObject.nullish(), taskOutput: z.record(z.string(), jsonObject).nullish() }),
    result: nothing,
  },
  skip: { arg: z.object({ ref: z.string(), input: jsonObject.nullish(), output: jsonObject.nullish() }), result: nothing },
  childChanged: { arg: ChildChangedArgSchema, result: nothing },
  /** Answers the variables after the update. */
  updateVariables: { arg: z.object({ variables: jsonObject.optional(), appendArray: z.boolean().optional() }), result: jsonObject },
  /** Re-pushes SCHEDULED tasks, re-arms the reminder, re-runs the outbox (after a restart or a move). */
  recover: { arg: none, result: nothing },
  /** Drops the outbox effects a drain carried out (each as its JSON text). */
  clearOutbox: { arg: z.object({ done: z.array(z.string()) }), result: nothing },
  remove: { arg: z.object({ archive: z.boolean().optional() }).optional(), result: nothing },
  get: { arg: none, result: object<Workflow>().nullable() },
});
export type WorkflowActorClient = Client<typeof WorkflowCalls.calls>;

/** The typed client of execution `workflowId`'s actor. */
export const workflowActor = (host: ActorHost, workflowId: string): WorkflowActorClient => WorkflowCalls.client(host, workflowId);
