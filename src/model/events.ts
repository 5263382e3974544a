import { z } from 'zod';
import { nameSchema } from './definitions';
import { TagListSchema } from './tags';

// Event handlers (Conductor's EventHandler and EventExecution). Action payload keys are snake_case as in Conductor.
const jsonObject = z.record(z.string(), z.unknown());

const TaskDetails = z.looseObject({
  workflowId: z.string().nullish(),
  taskRefName: z.string().nullish(),
  taskId: z.string().nullish(),
  output: jsonObject.nullish(),
  reasonForIncompletion: z.string().nullish(),
});

export const EventActionSchema = z.looseObject({
  action: z.enum(['start_workflow', 'complete_task', 'fail_task', 'terminate_workflow', 'update_workflow_variables']),
  start_workflow: z
    .looseObject({
      name: z.string().nullish(),
      version: z.number().int().nullish(),
      correlationId: z.string().nullish(),
      input: jsonObject.nullish(),
      taskToDomain: z.record(z.string(), z.string()).nullish(),
    })
    .nullish(),
  complete_task: TaskDetails.nullish(),
  fail_task: TaskDetails.nullish(),
  terminate_workflow: z.looseObject({ workflowId: z.string().nullish(), terminationReason: z.string().nullish() }).nullish(),
  update_workflow_variables: z.looseObject({ workflowId: z.string().nullish(), variables: jsonObject.nullish(), appendArray: z.boolean().nullish() }).nullish(),
  expandInlineJSON: z.boolean().default(false),
});
export type EventAction = z.infer<typeof EventActionSchema>;

/** Most actions one event handler may hold. */
export const EVENT_HANDLER_MAX_ACTIONS = 100;

export const EventHandlerSchema = z.looseObject({
  name: nameSchema('Event handler name', 'Missing event handler name'),
  event: z.string().min(1, 'Missing event location'),
  condition: z.string().nullish(),
  evaluatorType: z.string().nullish(),
  actions: z
    .array(EventActionSchema)
    .min(1, 'No actions specified. Please specify at-least one action')
    // One event runs every action; an event from outside starts a root per start_workflow action.
    .max(EVENT_HANDLER_MAX_ACTIONS, `An event handler has at most ${EVENT_HANDLER_MAX_ACTIONS} actions`),
  active: z.boolean().default(false),
  tags: TagListSchema.nullish(),
  /** Set by the server from the caller (Orkes' `app:<application id>`); what a client sends is ignored. */
  createdBy: z.string().optional(),
});
export type EventHandler = z.infer<typeof EventHandlerSchema>;

export const EventExecutionSchema = z.object({
  id: z.string(),
  messageId: z.string(),
  name: z.string(),
  event: z.string(),
  created: z.number(),
  status: z.enum(['IN_PROGRESS', 'COMPLETED', 'FAILED', 'SKIPPED']),
  action: z.string().optional(),
  output: jsonObject,
  /** The message's payload, on the first record of each handler only (Orkes' message `fullPayload`). */
  payload: jsonObject.optional(),
});
export type EventExecution = z.infer<typeof EventExecutionSchema>;
