import { z } from 'zod';
import { AccessKeyInfoSchema, ApplicationRecordSchema, ApplicationRequestSchema, ROLES, TagSchema, TokenRequestSchema } from '../model/applications';
import { TaskDefSchema, WorkflowDefSchema } from '../model/definitions';
import { EventExecutionSchema, EventHandlerSchema } from '../model/events';
import { TaskExecLogSchema, TaskSchema, WorkflowSchema } from '../model/execution';
import { RerunWorkflowRequestSchema, SkipTaskRequestSchema, StartWorkflowRequestSchema, TaskResultSchema } from '../model/requests';
import { TaskResultStatus, WorkflowStatus } from '../model/statuses';
import { TaskSummarySchema, WorkflowSummarySchema, searchResultSchema } from '../model/summaries';
import { ReturnStrategySchema, SignalResponseSchema } from '../model/signals';
import { WorkflowTestRequestSchema } from '../model/workflow-test';
import { ErrorResponseSchema, PollDataSchema } from '../model/responses';
import { ROLE_ALIASES } from '../auth/application-service';
import { BulkIdsSchema, BulkResponseSchema } from '../model/bulk';

// The OpenAPI 3.1 document served at /api-docs: every route Baton serves, its parameters, and its
// request and response bodies as JSON Schema generated from the zod schemas (z.toJSONSchema).

const jsonObject = z.record(z.string(), z.unknown());


/** Named schemas: responses are described as Baton writes them, request bodies as Baton accepts them. */
const COMPONENTS: Record<string, { schema: z.ZodType; io: 'input' | 'output' }> = {
  Workflow: { schema: WorkflowSchema, io: 'output' },
  Task: { schema: TaskSchema, io: 'output' },
  WorkflowDef: { schema: WorkflowDefSchema, io: 'output' },
  TaskDef: { schema: TaskDefSchema, io: 'output' },
  EventHandler: { schema: EventHandlerSchema, io: 'output' },
  EventExecution: { schema: EventExecutionSchema, io: 'output' },
  TaskExecLog: { schema: TaskExecLogSchema, io: 'output' },
  PollData: { schema: PollDataSchema, io: 'output' },
  SearchResultWorkflowSummary: { schema: searchResultSchema(WorkflowSummarySchema), io: 'output' },
  SearchResultTaskSummary: { schema: searchResultSchema(TaskSummarySchema), io: 'output' },
  SearchResultTask: { schema: searchResultSchema(TaskSchema), io: 'output' },
  SearchResultWorkflow: { schema: searchResultSchema(WorkflowSchema), io: 'output' },
  BulkResponse: { schema: BulkResponseSchema, io: 'output' },
  SignalResponse: { schema: SignalResponseSchema, io: 'output' },
  ErrorResponse: { schema: ErrorResponseSchema, io: 'output' },
  WorkflowDefRequest: { schema: WorkflowDefSchema, io: 'input' },
  TaskDefRequest: { schema: TaskDefSchema, io: 'input' },
  EventHandlerRequest: { schema: EventHandlerSchema, io: 'input' },
  StartWorkflowRequest: { schema: StartWorkflowRequestSchema, io: 'input' },
  WorkflowTestRequest: { schema: WorkflowTestRequestSchema, io: 'input' },
  TaskResult: { schema: TaskResultSchema, io: 'input' },
  RerunWorkflowRequest: { schema: RerunWorkflowRequestSchema, io: 'input' },
  SkipTaskRequest: { schema: SkipTaskRequestSchema, io: 'input' },
  WorkflowIds: { schema: BulkIdsSchema, io: 'input' },
};
type ComponentName = keyof typeof COMPONENTS;

/** A body: a named component, a list of one, an inline schema, plain text, or nothing. */
type Body = ComponentName | { list: ComponentName } | { inline: z.ZodType } | 'text' | 'empty';
type QueryKind = 'string' | 'integer' | 'boolean' | 'list';
type JsonSchema = Record<string, unknown>;
/** A query parameter: its kind, or the JSON Schema of what the handler accepts (`required` when it refuses its absence). */
type QueryParam = QueryKind | { schema: JsonSchema; required?: true };

interface Operation {
  summary: string;
  /** Path parameters narrower than any string (integers, enums), with a description where the name alone misleads. */
  pathParams?: Record<string, { schema?: JsonSchema; description?: string }>;
  query?: Record<string, QueryParam>;
  body?: Body;
  /** The handler takes a missing body as empty. */
  bodyOptional?: true;
  /** The success answer; 200 unless `status` says otherwise. */
  res: Body;
  status?: number;
  /** Another success answer without a body (204: nothing to hand out). */
  empty?: number;
}

// Constraints the handlers enforce (intParam bounds, enums), so generated requests and the document agree.
const range = (minimum: number, maximum?: number): QueryParam => ({ schema: { type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) } });
const oneOf = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });
const requiredText: QueryParam = { schema: { type: 'string', minLength: 1 }, required: true };
const taskStatus = { status: { schema: oneOf(TaskResultStatus.options) } };

type Method = 'get' | 'post' | 'put' | 'delete';
interface RouteDoc extends Operation {
  method: Method;
  path: string;
}

const routes: RouteDoc[] = [];
const add = (method: Method, paths: string | string[], op: Operation): void => {
  for (const path of Array.isArray(paths) ? paths : [paths]) routes.push({ method, path, ...op });
};

// ---- health, version, this document
add('get', ['/health', '/api/health'], { summary: 'Health (always healthy while serving)', res: { inline: z.object({ healthy: z.boolean(), indicators: z.array(z.unknown()) }) } });
add('get', '/api/version', { summary: 'Baton version', res: 'text' });
add('get', '/api-docs', { summary: 'This OpenAPI document', res: { inline: jsonObject } });

// ---- metadata (interface and Conductor paths)
for (const base of ['/api/metadata/workflowdef', '/api/metadata/workflow']) {
  add('get', base, { summary: 'All workflow definitions (every version)', res: { list: 'WorkflowDef' } });
  add('post', base, { summary: 'Register a workflow definition (409 when name and version exist, unless overwrite)', query: { overwrite: 'boolean' }, body: 'WorkflowDefRequest', res: 'empty' });
  add('post', `${base}/validate`, { summary: 'Validate a workflow definition', body: 'WorkflowDefRequest', res: 'empty' });
  add('put', base, { summary: 'Create or update workflow definitions', body: { inline: z.array(WorkflowDefSchema).min(1) }, res: 'BulkResponse' });
  add('get', `${base}/names-and-versions`, { summary: 'Versions of every workflow definition by name', res: { inline: z.record(z.string(), z.array(z.object({ name: z.string(), version: z.number().int(), createTime: z.number(), updateTime: z.number() }))) } });
  add('get', `${base}/latest-versions`, { summary: 'The latest version of every workflow definition', res: { list: 'WorkflowDef' } });
  add('get', `${base}/names`, { summary: 'Workflow definition names', res: { inline: z.array(z.string()) } });
  add('get', `${base}/{name}/versions`, { summary: 'Versions of one workflow definition', res: { inline: z.array(z.object({ name: z.string(), version: z.number().int(), createTime: z.number(), updateTime: z.number() })) } });
  add('get', `${base}/{name}`, { summary: 'A workflow definition (latest version unless given)', query: { version: 'integer' }, res: 'WorkflowDef' });
  add('delete', `${base}/{name}/{version}`, { summary: 'Delete a workflow definition version', pathParams: { version: { schema: { type: 'integer' } } }, res: 'empty' });
}
for (const base of ['/api/metadata/taskdef', '/api/metadata/taskdefs']) {
  add('get', base, { summary: 'All task definitions', res: { list: 'TaskDef' } });
  add('post', base, { summary: 'Create or update task definitions', body: { inline: z.array(TaskDefSchema).min(1) }, res: 'empty' });
  add('put', base, { summary: 'Create or update one task definition', body: 'TaskDefRequest', res: 'empty' });
  add('get', `${base}/{name}`, { summary: 'A task definition', res: 'TaskDef' });
  add('delete', `${base}/{name}`, { summary: 'Delete a task definition', res: 'empty' });
}

// ---- event handlers
add('post', '/api/event', { summary: 'Add an event handler (409 when the name exists)', body: 'EventHandlerRequest', res: 'empty' });
add('put', '/api/event', { summary: 'Update an event handler (404 when unknown)', body: 'EventHandlerRequest', res: 'empty' });
add('get', '/api/event', { summary: 'All event handlers', res: { list: 'EventHandler' } });
add('get', '/api/event/execution', { summary: 'What event handlers did: one record per action', res: { list: 'EventExecution' } });
add('get', '/api/event/execution/{name}', { summary: 'What one event handler did', res: { list: 'EventExecution' } });
// One path item: GET reads {name} as an event, DELETE as a handler name (Conductor's two templates are the same path).
add('delete', '/api/event/{name}', { summary: 'Remove an event handler', pathParams: { name: { description: 'the event handler name' } }, res: 'empty' });
add('get', '/api/event/{name}', { summary: 'Handlers of an event (e.g. conductor:wf:ref)', pathParams: { name: { description: 'the event' } }, query: { activeOnly: 'boolean' }, res: { list: 'EventHandler' } });

// ---- admin
add('get', '/api/admin/config', { summary: 'The running configuration (secrets redacted)', res: { inline: jsonObject } });
add('get', '/api/admin/task/{tasktype}', { summary: 'Pending (SCHEDULED or IN_PROGRESS) tasks of a type', query: { start: range(0), count: range(0, 5000) }, res: { list: 'Task' } });
add('post', '/api/admin/consistency/verifyAndRepair/{workflowId}', { summary: "Repair an execution's queue entries, deadline and outbox from its stored state; answers true", res: 'text' });
add('post', '/api/admin/sweep/requeue/{workflowId}', { summary: "Re-push an execution's scheduled tasks and re-arm its deadline; answers true.<workflowId>", res: 'text' });

// ---- workflows
const bulkOps: Array<[Method, string, string, Record<string, QueryKind>?]> = [
  ['put', 'pause', 'Pause executions'],
  ['put', 'resume', 'Resume executions'],
  ['post', 'restart', 'Restart executions', { useLatestDefinitions: 'boolean' }],
  ['post', 'retry', 'Retry executions'],
  ['post', 'terminate', 'Terminate executions', { reason: 'string' }],
  ['delete', 'remove', 'Remove executions', { archiveWorkflow: 'boolean' }],
  ['delete', 'terminate-remove', 'Terminate, then remove, executions', { archiveWorkflow: 'boolean', reason: 'string' }],
];
for (const [method, op, summary, query] of bulkOps) add(method, `/api/workflow/bulk/${op}`, { summary: `${summary} (up to 1000 ids)`, query, body: 'WorkflowIds', res: 'BulkResponse' });
add('post', '/api/workflow/execute/{name}/{version}', {
  summary: 'Start an execution and wait until it ends, blocks (WAIT/HUMAN/YIELD), or a named task ends; version 0 is the latest',
  pathParams: { version: { schema: { type: 'integer', minimum: 0 } } },
  query: { requestId: 'string', waitUntilTaskRef: 'list', waitForSeconds: range(0, 600), consistency: 'string', returnStrategy: { schema: oneOf(ReturnStrategySchema.options) } },
  body: 'StartWorkflowRequest',
  bodyOptional: true,
  res: 'SignalResponse',
});
add('post', '/api/workflow/test', { summary: 'A run driven by mocked task results, in a task domain no worker polls', body: 'WorkflowTestRequest', res: 'Workflow' });
add('delete', '/api/workflow/{workflowId}/terminate-remove', { summary: 'Terminate, then remove, an execution', query: { reason: 'string', archiveWorkflow: 'boolean' }, res: 'empty' });
add('post', '/api/workflow', { summary: 'Start an execution; answers its id', body: 'StartWorkflowRequest', res: 'text' });
const search = { start: range(0), size: range(0, 5000), sort: 'string', freeText: 'string', query: 'string' } as const;
add('get', '/api/workflow/search', { summary: 'Search executions', query: search, res: 'SearchResultWorkflowSummary' });
for (const base of ['/api/workflow', '/api/tasks', '/api/task']) {
  for (const p of ['externalstoragelocation', 'external-storage-location']) {
    add('get', `${base}/${p}`, {
      summary: 'External payload storage location: not available in Baton (payloads travel inline); 400 for bad parameters, else 501',
      query: { path: requiredText, operation: { schema: oneOf(['READ', 'WRITE']), required: true }, payloadType: { schema: oneOf(['WORKFLOW_INPUT', 'WORKFLOW_OUTPUT', 'TASK_INPUT', 'TASK_OUTPUT']), required: true } },
      res: 'empty',
      status: 501,
    });
  }
}
add('get', '/api/workflow/search-v2', { summary: 'Search executions; answers the executions (without tasks)', query: search, res: 'SearchResultWorkflow' });
add('get', '/api/workflow/search-by-tasks', { summary: 'Search task records; answers the summaries of their executions, each once', query: search, res: 'SearchResultWorkflowSummary' });
add('get', '/api/workflow/search-by-tasks-v2', { summary: 'Search task records; answers their executions (without tasks), each once', query: search, res: 'SearchResultWorkflow' });
add('get', '/api/workflow/running/{name}', { summary: 'Ids of running executions of a definition', query: { version: 'integer', startTime: 'integer', endTime: 'integer' }, res: { inline: z.array(z.string()) } });
const correlated = { includeClosed: 'boolean', includeTasks: 'boolean' } as const;
add('get', ['/api/workflow/running/{name}/correlated/{correlationId}', '/api/workflow/{name}/correlated/{correlationId}'], { summary: 'Executions of a definition with a correlation id', query: correlated, res: { list: 'Workflow' } });
add('post', '/api/workflow/{name}/correlated', { summary: 'Executions by correlation id, for each id given', query: correlated, body: { inline: z.array(z.string()) }, res: { inline: z.record(z.string(), z.array(WorkflowSchema)) } });
add('put', '/api/workflow/decide/{workflowId}', { summary: 'Re-evaluate an execution', res: 'empty' });
add('put', '/api/workflow/skiptask', { summary: 'Skip a task (ids in the query)', query: { workflowId: requiredText, taskReferenceName: requiredText, taskInput: 'string', taskOutput: 'string' }, body: 'SkipTaskRequest', bodyOptional: true, res: 'empty' });
add('put', '/api/workflow/{workflowId}/skiptask/{taskReferenceName}', { summary: 'Skip a task', query: { taskInput: 'string', taskOutput: 'string' }, body: 'SkipTaskRequest', bodyOptional: true, res: 'empty' });
// Conductor's POST /workflow/{name} and GET/DELETE /workflow/{workflowId} are one path: the template takes one name.
add('post', '/api/workflow/{workflowId}', {
  summary: 'Start an execution of a definition with the body as input; answers its id',
  pathParams: { workflowId: { description: 'the name of the workflow definition to start' } },
  query: { version: 'integer', correlationId: 'string', priority: range(0, 99) },
  body: { inline: jsonObject },
  bodyOptional: true,
  res: 'text',
});
add('get', '/api/workflow/{workflowId}', { summary: 'An execution', query: { includeTasks: 'boolean' }, res: 'Workflow' });
add('delete', '/api/workflow/{workflowId}', { summary: 'Terminate an execution', query: { reason: 'string' }, res: 'empty' });
add('get', '/api/workflow/{workflowId}/status', {
  summary: 'Status of an execution',
  query: { includeOutput: 'boolean', includeVariables: 'boolean' },
  res: { inline: z.object({ workflowId: z.string(), correlationId: z.string().optional(), output: jsonObject.optional(), variables: jsonObject.optional(), status: WorkflowStatus }) },
});
add('get', '/api/workflow/{workflowId}/tasks', { summary: 'Tasks of an execution, a page at a time', query: { start: range(0), count: range(0), status: 'list' }, res: 'SearchResultTask' });
add('delete', '/api/workflow/{workflowId}/remove', { summary: 'Remove an execution', query: { archiveWorkflow: 'boolean' }, res: 'empty' });
add('put', '/api/workflow/{workflowId}/pause', { summary: 'Pause an execution', res: 'empty' });
add('put', '/api/workflow/{workflowId}/resume', { summary: 'Resume a paused execution', res: 'empty' });
add('post', '/api/workflow/{workflowId}/rerun', { summary: 'Rerun an ended execution; answers its id', body: 'RerunWorkflowRequest', bodyOptional: true, res: 'text' });
add('post', '/api/workflow/{workflowId}/restart', { summary: 'Restart an ended execution', query: { useLatestDefinitions: 'boolean' }, res: 'empty', status: 204 });
add('post', '/api/workflow/{workflowId}/resetcallbacks', { summary: 'Make scheduled worker tasks waiting for callbackAfterSeconds pollable now', res: 'empty', status: 204 });
add('post', '/api/workflow/{workflowId}/retry', { summary: 'Retry a failed execution from its failed tasks', query: { resumeSubworkflowTasks: 'boolean' }, res: 'empty', status: 204 });

// ---- tasks (Conductor's /api/tasks and the interface's /api/task)
for (const base of ['/api/tasks', '/api/task']) {
  add('get', `${base}/poll/batch/{taskType}`, { summary: 'Long-poll up to count tasks', query: { workerid: 'string', domain: 'string', count: range(1, 1000), timeout: range(0, 5000) }, res: { list: 'Task' } });
  add('get', `${base}/poll/{taskType}`, { summary: 'Poll one task (204 when none)', query: { workerid: 'string', domain: 'string' }, res: 'Task', empty: 204 });
  add('post', base, { summary: 'Update a task with its result; answers the task id', body: 'TaskResult', res: 'text' });
  add('post', `${base}/update-v2`, { summary: 'Update a task, then poll the next of its type (204 when none)', body: 'TaskResult', res: 'Task', empty: 204 });
  add('get', `${base}/search`, { summary: 'Search tasks', query: search, res: 'SearchResultTaskSummary' });
  add('get', `${base}/search-v2`, { summary: 'Search tasks; answers the tasks themselves', query: search, res: 'SearchResultTask' });
  add('post', `${base}/queue/requeue/{taskType}`, { summary: 'Re-push the scheduled tasks of a type to their queues; answers how many', res: 'text' });
  add('post', `${base}/{taskId}/ack`, { summary: 'Conductor 2.x acknowledgement: a poll already claims the task; answers whether it exists', query: { workerid: 'string' }, res: 'text' });
  add('get', `${base}/queue/all`, { summary: 'Size of every queue', res: { inline: z.record(z.string(), z.number().int()) } });
  add('get', `${base}/queue/all/verbose`, { summary: 'Size and leased count of every queue partition', res: { inline: z.record(z.string(), z.record(z.string(), z.object({ size: z.number().int(), uacked: z.number().int() }))) } });
  add('get', `${base}/queue/sizes`, { summary: 'Queue sizes of task types', query: { taskType: 'list' }, res: { inline: z.record(z.string(), z.number().int()) } });
  add('get', `${base}/queue/size`, { summary: 'Size of one queue', query: { taskType: requiredText, domain: 'string', isolationGroupId: 'string', executionNamespace: 'string' }, res: { inline: z.number().int() } });
  add('get', `${base}/queue/polldata`, { summary: 'Last polls of a task type', query: { taskType: requiredText }, res: { list: 'PollData' } });
  add('get', `${base}/queue/polldata/all`, { summary: 'Last polls of every task type', res: { list: 'PollData' } });
  add('post', `${base}/{taskId}/log`, { summary: 'Add a log line to a task', body: 'text', res: 'empty' });
  add('get', `${base}/{taskId}/log`, { summary: 'Log lines of a task (204 when none)', res: { list: 'TaskExecLog' }, empty: 204 });
  add('get', `${base}/{taskId}`, { summary: 'A task', res: 'Task' });
  const signal = { pathParams: taskStatus, body: { inline: jsonObject }, bodyOptional: true } as const;
  add('post', `${base}/{workflowId}/{status}/signal`, { summary: 'Signal the first waiting (WAIT/HUMAN/YIELD) task, in the execution or its running sub-workflows', ...signal, res: 'empty' });
  add('post', `${base}/{workflowId}/{status}/signal/sync`, {
    summary: 'Signal, then wait for the next blocking point',
    query: { returnStrategy: { schema: oneOf(ReturnStrategySchema.options) }, timeoutMillis: range(0, 600_000) },
    ...signal,
    res: 'SignalResponse',
  });
  add('post', `${base}/{workflowId}/{taskRefName}/{status}`, { summary: 'Update a pending task by reference, merging the body into its output; answers its id', query: { workerid: 'string' }, ...signal, res: 'text' });
  add('post', `${base}/{workflowId}/{taskRefName}/{status}/sync`, { summary: 'Update a pending task by reference; answers the execution', query: { workerid: 'string' }, ...signal, res: 'Workflow' });
}
add('get', '/apitasks/{taskId}', { summary: 'A task (the interface spells this path without its slash)', res: 'Task' });
add('post', '/api/queue/update/{workflowId}/task/{taskId}/{status}', { summary: 'Complete a pending task by id with the body as output', pathParams: taskStatus, body: { inline: jsonObject }, bodyOptional: true, res: 'empty' });
add('post', '/api/queue/update/{workflowId}/{taskRefName}/{status}', { summary: 'Complete a pending task by reference with the body as output', pathParams: taskStatus, body: { inline: jsonObject }, bodyOptional: true, res: 'empty' });

// ---- access: tokens and the Orkes application API (src/auth; ADMIN only, except /api/token)
const ApplicationSchema = ApplicationRecordSchema;
add('post', '/api/token', { summary: 'An access token for an access key (send it as X-Authorization); 404 while auth is off', body: { inline: TokenRequestSchema }, res: { inline: z.object({ token: z.string() }) } });
add('get', '/api/token/userInfo', { summary: 'The application of the calling token and its roles', res: { inline: jsonObject } });
add('get', '/api/applications', { summary: 'All applications', res: { inline: z.array(ApplicationSchema) } });
add('post', '/api/applications', { summary: 'Create an application (no roles, no keys yet)', body: { inline: ApplicationRequestSchema }, res: { inline: ApplicationSchema } });
add('get', '/api/applications/key/{accessKeyId}', { summary: 'The application an access key belongs to', res: { inline: ApplicationSchema } });
add('get', '/api/applications/{id}', { summary: 'An application', res: { inline: ApplicationSchema } });
add('put', '/api/applications/{id}', { summary: 'Rename an application', body: { inline: ApplicationRequestSchema }, res: { inline: ApplicationSchema } });
add('delete', '/api/applications/{id}', { summary: 'Delete an application and its access keys', res: 'empty' });
add('get', '/api/applications/{id}/accessKeys', { summary: "An application's access keys (never their secrets)", res: { inline: z.array(AccessKeyInfoSchema) } });
add('post', '/api/applications/{id}/accessKeys', { summary: 'Create an access key; its secret is in this answer only', res: { inline: z.object({ id: z.string(), secret: z.string() }) } });
add('delete', '/api/applications/{applicationId}/accessKeys/{keyId}', { summary: 'Delete an access key', res: 'empty' });
add('post', '/api/applications/{applicationId}/accessKeys/{keyId}/status', { summary: 'Toggle an access key between ACTIVE and INACTIVE', res: { inline: AccessKeyInfoSchema } });
const role = { role: { schema: oneOf([...ROLES, ...Object.keys(ROLE_ALIASES)]) } };
for (const method of ['post', 'put'] as const) add(method, '/api/applications/{applicationId}/roles/{role}', { summary: `Grant a role (${ROLES.join(', ')})`, pathParams: role, res: { inline: ApplicationSchema } });
add('delete', '/api/applications/{applicationId}/roles/{role}', { summary: 'Take a role away', pathParams: role, res: { inline: ApplicationSchema } });
add('get', '/api/applications/{id}/tags', { summary: "An application's tags", res: { inline: z.array(TagSchema) } });
add('put', '/api/applications/{id}/tags', { summary: 'Add tags to an application', body: { inline: z.array(TagSchema) }, res: 'empty' });
add('delete', '/api/applications/{id}/tags', { summary: 'Remove tags from an application', body: { inline: z.array(TagSchema) }, res: 'empty' });

/** Every documented (method, path), with the closed sets of values of its path parameters (for 405 answers and tests). */
export const DOCUMENTED_ROUTES: ReadonlyArray<{ method: Method; path: string; pathEnums: Record<string, readonly string[]> }> = routes.map(({ method, path, pathParams }) => ({
  method,
  path,
  pathEnums: Object.fromEntries(Object.entries(pathParams ?? {}).flatMap(([name, p]) => (Array.isArray(p.schema?.enum) ? [[name, p.schema.enum as string[]]] : []))),
}));

/** One component as JSON Schema, its `$defs` hoisted to components (prefixed) so every `$ref` resolves in the document. */
function toComponent(name: string, schema: z.ZodType, io: 'input' | 'output', into: Record<string, JsonSchema>): JsonSchema {
  const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, k === '$ref' && typeof x === 'string' && x.startsWith('#/$defs/') ? `#/components/schemas/${name}_${x.slice(8)}` : k === '$ref' && x === '#' ? `#/components/schemas/${name}` : rewrite(x)]),
    );
  };
  for (const [def, s] of Object.entries($defs ?? {})) into[`${name}_${def}`] = rewrite(s) as JsonSchema;
  return rewrite(rest) as JsonSchema;
}

function content(body: Body, inline: (s: z.ZodType) => JsonSchema): Record<string, unknown> | undefined {
  if (body === 'empty') return undefined;
  if (body === 'text') return { 'text/plain': { schema: { type: 'string' } } };
  const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
  const schema = typeof body === 'string' ? ref(body) : 'list' in body ? { type: 'array', items: ref(body.list) } : inline(body.inline);
  return { 'application/json': { schema } };
}

const QUERY_SCHEMA: Record<QueryKind, JsonSchema> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  // Any text is a list to the handlers (listParam): items split at commas, the parameter may repeat.
  list: { type: 'string', description: 'comma-separated values; the parameter may also repeat' },
};

/** Builds the document (once per app). */
export function openApiDocument(version: string): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, c] of Object.entries(COMPONENTS)) schemas[name] = toComponent(name, c.schema, c.io, schemas);
  let n = 0;
  // Request bodies as accepted (defaults optional, unknown properties ignored as Conductor does), responses as written.
  const inline = (io: 'input' | 'output') => (s: z.ZodType): JsonSchema => toComponent(`Inline${++n}`, s, io, schemas);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const pathParams = [...r.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
      const p = r.pathParams?.[name!];
      return { name, in: 'path', required: true, ...(p?.description ? { description: p.description } : {}), schema: p?.schema ?? { type: 'string' } };
    });
    const queryParams = Object.entries(r.query ?? {}).map(([name, q]) => {
      const required = typeof q === 'object' && q.required === true;
      const schema = typeof q === 'object' ? q.schema : QUERY_SCHEMA[q];
      // The handlers read an empty value as an absent one (the default).
      return { name, in: 'query', required, ...(required ? {} : { allowEmptyValue: true }), schema };
    });
    const requestContent = r.body ? content(r.body, inline('input')) : undefined;
    const responseContent = content(r.res, inline('output'));
    const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } };
    (paths[r.path] ??= {})[r.method] = {
      summary: r.summary,
      ...(pathParams.length + queryParams.length > 0 ? { parameters: [...pathParams, ...queryParams] } : {}),
      ...(requestContent ? { requestBody: { required: r.body !== 'text' && !r.bodyOptional, content: requestContent } } : {}),
      responses: {
        [String(r.status ?? 200)]: { description: 'Success', ...(responseContent ? { content: responseContent } : {}) },
        ...(r.empty ? { [String(r.empty)]: { description: 'Nothing to answer' } } : {}),
        '4XX': { description: 'Client mistake: 400 invalid input, 404 unknown id, 409 conflicting state, 413 too large', content: errorContent },
        '5XX': { description: 'Server error', content: errorContent },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Baton', version, description: 'The Conductor REST API as Baton serves it.' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: { schemas },
  };
}
