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

/** What each action needs to be runnable; values may be `${...}` expressions over the event payload. */
function actionProblems(h: EventHandler): Array<{ path: Array<string | number>; message: string }> {
  const problems: Array<{ path: Array<string | number>; message: string }> = [];
  h.actions.forEach((a, i) => {
    const path = ['actions', i, a.action];
    const p = a[a.action] as Record<string, unknown> | null | undefined;
    if (!p) return void problems.push({ path, message: `action ${a.action} needs its '${a.action}' object` });
    const has = (k: string): boolean => typeof p[k] === 'string' && p[k] !== '';
    if (a.action === 'start_workflow' && !has('name')) problems.push({ path: [...path, 'name'], message: 'workflow name is required' });
    if ((a.action === 'complete_task' || a.action === 'fail_task') && !has('taskId') && !(has('workflowId') && has('taskRefName'))) {
      problems.push({ path, message: 'taskId, or workflowId and taskRefName, are required' });
    }
    if ((a.action === 'terminate_workflow' || a.action === 'update_workflow_variables') && !has('workflowId'))
      problems.push({ path: [...path, 'workflowId'], message: 'workflowId is required' });
  });
  return problems;
}

/** A handler as POST and PUT take it: its schema, then what its actions need. */
export const EventHandlerRequestSchema = EventHandlerSchema.superRefine((h, ctx) => {
  for (const p of actionProblems(h)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
});

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
