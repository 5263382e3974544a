import { ApiError, type BatonError, EngineError } from './errors';
import type { ValidationErrors } from './responses';

// Every error Baton raises by name (fastify's lib/errors.js): its stable code, HTTP status and message
// template, once. docs/errors.md lists them; a test keeps the two in step. Other refusals answer the
// code of their status (INVALID_INPUT, NOT_FOUND, CONFLICT, ...).

interface ErrorDef<A extends unknown[]> {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 500 | 501 | 503;
  message: (...args: A) => string;
  /** The fields at fault, answered as validationErrors. */
  fields?: (...args: A) => ValidationErrors;
  /** A command the execution's state refuses (an EngineError, raised inside an actor's turn). */
  engine?: true;
}

/** A named error: call it with the template's arguments to get the error to throw. */
export type NamedError<A extends unknown[]> = ((...args: A) => BatonError) & { readonly code: string; readonly status: number };

const KIND_OF_STATUS = { 400: 'invalid', 404: 'notFound', 409: 'conflict' } as const;

function named<A extends unknown[]>(code: string, def: ErrorDef<A>): NamedError<A> {
  const raise = (...args: A): BatonError => {
    const message = def.message(...args);
    if (!def.engine) return new ApiError(def.status, message, def.fields?.(...args), code);
    return new EngineError(KIND_OF_STATUS[def.status as keyof typeof KIND_OF_STATUS] ?? 'invalid', message, code);
  };
  return Object.assign(raise, { code, status: def.status });
}

const define = <T extends Record<string, ErrorDef<never[]>>>(defs: { [K in keyof T]: T[K] }): {
  [K in keyof T]: T[K] extends ErrorDef<infer A> ? NamedError<A> : never;
} => Object.fromEntries(Object.entries(defs).map(([code, def]) => [code, named(code, def as ErrorDef<unknown[]>)])) as never;

export const Errors = define({
  WORKFLOW_NOT_FOUND: { status: 404, message: (workflowId: string) => `No such workflow found by id: ${workflowId}` },
  WORKFLOW_DEF_NOT_FOUND: {
    status: 404,
    message: (name: string, version: number | null | undefined) => `No such workflow found by name: ${name}, version: ${version ?? null}`,
  },
  TASK_NOT_FOUND: { status: 404, engine: true, message: (taskId: string) => `No such task found by id: ${taskId}` },
  PENDING_TASK_NOT_FOUND: { status: 404, message: (ref: string, workflowId: string) => `No pending task ${ref} in workflow ${workflowId}` },
  EVENT_HANDLER_NOT_FOUND: { status: 404, message: (name: string) => `EventHandler with name ${name} not found!` },
  IDEMPOTENT_START_IN_FLIGHT: {
    status: 503,
    message: (key: string) => `A start with the idempotency key ${key} is still in flight; retry to get its execution id`,
  },
  // Conductor's WorkflowExecutor.retry answers a running workflow with 404.
  RETRY_OF_RUNNING_WORKFLOW: { status: 404, engine: true, message: (status: string) => `Workflow is still running.  status=${status}` },
  WORKFLOW_NOT_STARTED: { status: 409, engine: true, message: () => 'Workflow has not started yet' },
  NO_RETRYABLE_TASKS: {
    status: 409,
    engine: true,
    message: () => 'There are no retryable tasks! Use restart if you want to attempt entire workflow execution again.',
  },
  WORKFLOW_TERMINAL: { status: 409, engine: true, message: (status: string) => `Workflow is in terminal state. Status = ${status}` },
  WORKFLOW_NOT_PAUSED: {
    status: 409,
    engine: true,
    message: (workflowId: string, status: string) => `The workflow ${workflowId} is not paused, it is in ${status} state.`,
  },
  WORKFLOW_COMPLETED: { status: 409, engine: true, message: (workflowId: string) => `Cannot terminate a COMPLETED workflow ${workflowId}` },
  WORKFLOW_STILL_RUNNING: {
    status: 409,
    engine: true,
    message: (workflowId: string, status: string, what: string) => `Workflow ${workflowId} is still running (${status}); it cannot be ${what}.`,
  },
  WORKFLOW_NOT_RESTARTABLE: {
    status: 404,
    engine: true,
    message: (workflowId: string, name: string, version: number) =>
      `WorkflowId: ${workflowId} is an instance of WorkflowDef: ${name} and version: ${version} and is non restartable`,
  },
  WORKFLOW_NOT_RUNNING: {
    status: 409,
    engine: true,
    message: (workflowId: string, status: string) => `The workflow ${workflowId} is not running, status: ${status}`,
  },
  WORKFLOW_ENDED: { status: 409, engine: true, message: (workflowId: string) => `Workflow ${workflowId} has ended, status cannot be updated.` },
  WORKFLOW_VARIABLES_FINAL: {
    status: 409,
    engine: true,
    message: (workflowId: string, status: string) => `Workflow ${workflowId} has ended (${status}); its variables cannot be updated`,
  },
  WORKFLOW_ARCHIVED: {
    status: 409,
    message: (workflowId: string, status: string) => `Workflow ${workflowId} is archived (it ended ${status}); an archived execution cannot be changed`,
  },
  WORKFLOW_NOT_ARCHIVABLE: {
    status: 400,
    engine: true,
    message: (workflowId: string, status: string) => `Cannot archive workflow: ${workflowId} with status: ${status}`,
  },
  RERUN_TASK_NOT_FOUND: { status: 400, engine: true, message: (taskId: string, workflowId: string) => `Task ${taskId} not found in workflow ${workflowId}` },
  SKIP_UNKNOWN_TASK: {
    status: 400,
    engine: true,
    message: (ref: string, workflowName: string) => `The task ${ref} does not exist in the definition of workflow ${workflowName}`,
  },
  SKIP_ENDED_TASK: {
    status: 409,
    engine: true,
    message: (ref: string, workflowId: string, status: string) =>
      `The task ${ref} of workflow ${workflowId} has already ended (${status}); it cannot be skipped`,
  },
  SKIP_RUNNING_CONTROL_TASK: {
    status: 409,
    engine: true,
    message: (ref: string, workflowId: string, taskType: string) =>
      `The task ${ref} of workflow ${workflowId} is a ${taskType} task, which cannot be skipped while it runs; only worker, HTTP, WAIT, HUMAN, EVENT and SUB_WORKFLOW tasks can`,
  },
  TASK_PAYLOAD_TOO_LARGE: { status: 400, engine: true, message: (problem: string) => problem },
  UPGRADE_OTHER_WORKFLOW: {
    status: 400,
    engine: true,
    message: (workflowId: string, workflowName: string, name: string) =>
      `Workflow ${workflowId} is an execution of ${workflowName}; it cannot be upgraded to a version of ${name}`,
  },
  UPGRADE_TASK_REMOVED: {
    status: 409,
    engine: true,
    message: (ref: string, workflowId: string, status: string, version: number, name: string) =>
      `The task ${ref} of workflow ${workflowId} is ${status}, and version ${version} of ${name} has no such task; the execution cannot be upgraded`,
  },
  UPGRADE_TASK_TYPE_CHANGED: {
    status: 409,
    engine: true,
    message: (ref: string, workflowId: string, type: string, version: number, newType: string) =>
      `The task ${ref} of workflow ${workflowId} is a ${type} task, which version ${version} makes a ${newType} task; the execution cannot be upgraded`,
  },
  UPGRADE_INSIDE_LOOP: {
    status: 409,
    engine: true,
    message: (ref: string, loopRef: string, version: number) =>
      `The task ${ref} would be added inside the running loop ${loopRef} by version ${version}, before the current position; a running iteration cannot be upgraded`,
  },
  UPGRADE_UNKNOWN_TASK_OUTPUT: {
    status: 400,
    engine: true,
    message: (ref: string, added: string) => `taskOutput names ${ref}, which the upgrade does not add; the tasks it adds as SKIPPED are: [${added}]`,
  },
  SKIPPED_TASK_RESULT: {
    status: 409,
    engine: true,
    message: (taskId: string, ref: string, workflowId: string) => `Task ${taskId} (${ref}) of workflow ${workflowId} was skipped; its result is refused`,
  },
  // Batches
  BATCHES_AT_LIMIT: {
    status: 429,
    message: (open: number) => `${open} batches are running, the most allowed (BATON_BATCH_MAX_OPEN); cancel one or wait`,
  },
  BATCH_TOO_MANY_MATCHES: {
    status: 400,
    message: (totalHits: number, maxMatches: number) =>
      `The search matches ${totalHits} executions, over the limit of ${maxMatches} per batch (BATON_BATCH_MAX_MATCHES); narrow the query`,
  },
  BATCH_NOT_FOUND: { status: 404, message: (id: string) => `No such batch: ${id}` },
  BATCH_ENDED: { status: 409, message: (id: string, state: string) => `Batch ${id} is already ${state}` },
  BATCHES_UNAVAILABLE: { status: 503, message: () => 'Batches are not available on this server' },
  // Secrets
  SECRETS_UNAVAILABLE: { status: 503, message: () => 'secrets are not available on this server' },
  SECRET_KEY_MISSING: { status: 503, message: (problem: string) => problem },
  SECRET_NAME_INVALID: { status: 400, message: () => "Invalid secret name: use 1 to 255 letters, digits, '_' or '-'" },
  SECRET_NOT_FOUND: { status: 404, message: (name: string) => `No such secret found by key: ${name}` },
  SECRET_VALUE_INVALID: { status: 400, message: (name: string, problem: string) => `Invalid secret value for '${name}': ${problem}` },
  // Schedules
  SCHEDULER_UNAVAILABLE: { status: 501, message: () => 'The scheduler is not available in this server' },
  SCHEDULE_NOT_FOUND: { status: 404, message: (name: string) => `Schedule '${name}' not found` },
  SCHEDULE_QUERY_INVALID: { status: 400, message: (clause: string) => `Invalid query clause: ${clause}` },
  SCHEDULE_QUERY_MULTIPLE_VALUES: { status: 400, message: (clause: string) => `Only one value is supported in: ${clause}` },
  SCHEDULE_QUERY_UNKNOWN_FIELD: { status: 400, message: (name: string) => `Unknown field in query: ${name}` },
  SCHEDULE_STATE_INVALID: { status: 400, message: (state: string) => `Invalid state: ${state}` },
  SCHEDULE_SORT_INVALID: { status: 400, message: (sort: string) => `Invalid sort: ${sort} (scheduledTime:ASC or scheduledTime:DESC)` },
  SCHEDULE_TAG_REQUIRED: {
    status: 400,
    message: () => "Query parameter 'tag' is required (key:value)",
    fields: () => [{ path: 'tag', message: 'required' }],
  },
  CRON_EXPRESSION_REQUIRED: {
    status: 400,
    message: () => "Query parameter 'cronExpression' is required",
    fields: () => [{ path: 'cronExpression', message: 'required' }],
  },
  CRON_EXPRESSION_INVALID: {
    status: 400,
    message: (problem: string) => problem,
    fields: (problem: string) => [{ path: 'cronExpression', message: problem }],
  },
  ZONE_ID_INVALID: {
    status: 400,
    message: (zoneId: string | null | undefined) => `Invalid zoneId: ${zoneId}`,
    fields: (_zoneId: string | null | undefined) => [{ path: 'zoneId', message: 'unknown time zone' }],
  },
  SCHEDULE_END_BEFORE_START: { status: 400, message: () => 'scheduleEndTime must not be before scheduleStartTime' },
  // Authentication, applications and authorization
  AUTH_OFF: { status: 404, message: () => 'Authentication is off on this server (BATON_AUTH=off): no token is needed' },
  ACCESS_KEY_INVALID: { status: 401, message: () => 'Invalid access key id or secret, or the key is disabled' },
  TOKEN_LIMITS_UNCHECKABLE: { status: 503, message: () => 'Token requests cannot be checked against their limits right now: retry in a moment' },
  TOKEN_MISSING: { status: 401, message: () => 'Missing token: send the token from POST /api/token in X-Authorization' },
  TOKEN_EXPIRED: { status: 401, message: () => 'Token expired: ask /api/token for a new one' },
  TOKEN_INVALID: { status: 401, message: () => 'Invalid token' },
  TOKEN_KEY_DISABLED: { status: 401, message: () => 'The access key of this token is disabled or deleted' },
  PERMISSION_DENIED: {
    status: 403,
    message: (permission: string, applicationId: string, roles: string) =>
      `Access denied: ${permission} is not granted to application ${applicationId} (roles: ${roles})`,
  },
  GRANT_REFUSED: {
    status: 403,
    message: (applicationId: string, access: string, targetType: string, targetId: string) =>
      `Access denied: application ${applicationId} holds no ${access} grant on ${targetType} ${targetId}`,
  },
  BROWSER_REFUSED: { status: 403, message: (reason: string) => reason },
  ACCESS_CHECK_FAILED: { status: 503, message: () => 'Checking access failed; retry' },
  REQUEST_TARGET_INVALID: { status: 400, message: (problem: string) => problem },
  APPLICATION_NOT_FOUND: { status: 404, message: (id: string) => `No such application: ${id}` },
  ACCESS_KEY_APPLICATION_NOT_FOUND: { status: 404, message: (keyId: string) => `No application has the access key ${keyId}` },
  ACCESS_KEY_NOT_FOUND: { status: 404, message: (applicationId: string, keyId: string) => `Application ${applicationId} has no access key ${keyId}` },
  ACCESS_KEYS_AT_LIMIT: {
    status: 409,
    message: (applicationId: string, max: number) => `Application ${applicationId} already has ${max} access keys: delete one first`,
  },
  APPLICATION_ROLE_UNKNOWN: {
    status: 400,
    message: (role: string, roles: string, batonRoles: string) => `Unknown role ${role}: the roles are ${roles} (Baton's: ${batonRoles})`,
  },
  ROLE_UNKNOWN: { status: 400, message: (role: string, roles: string) => `Unknown role ${role}: the roles are ${roles}` },
  ROLE_NOT_FOUND: { status: 404, message: (name: string) => `No such role: ${name}` },
  ROLE_EXISTS: { status: 409, message: (name: string) => `Role ${name} already exists` },
  ROLE_BUILT_IN: { status: 400, message: (name: string) => `Role ${name} is a system role: it cannot be created, changed or deleted` },
  ROLE_PERMISSION_UNKNOWN: {
    status: 400,
    message: (names: string) => `Unknown permissions ${names}: GET /api/roles/permissions lists them (ACCESS_RESOURCE, as READ_WORKFLOW_DEF)`,
  },
  USER_NOT_FOUND: { status: 404, message: (id: string) => `No such user: ${id}` },
  GROUP_NOT_FOUND: { status: 404, message: (id: string) => `No such group: ${id}` },
  GROUP_UNKNOWN: { status: 400, message: (id: string) => `No such group: ${id}` },
  AUTHORIZATION_ID_INVALID: { status: 400, message: (what: string, problem: string) => `${what}: ${problem}` },
  TARGET_TYPE_INVALID: { status: 400, message: (types: string) => `type must be one of ${types}` },
  // Validation and definitions
  INVALID_INPUT: {
    status: 400,
    message: (_errors: ValidationErrors) => 'Validation failed, check below errors for detail.',
    fields: (errors: ValidationErrors) => errors,
  },
  BODY_MISSING: { status: 400, message: (what: string) => `Missing request body: ${what} expected` },
  VERSION_INVALID: { status: 400, message: (version: string | undefined) => `Invalid version '${version}'` },
  DEFINITION_TOO_LARGE: {
    status: 413,
    message: (kind: string, name: string, bytes: number, maxBytes: number) =>
      `${kind} ${name} is ${bytes} bytes, over the limit of ${maxBytes} bytes (BATON_MAX_DEFINITION_BYTES)`,
  },
  DEFINITIONS_AT_LIMIT: {
    status: 400,
    message: (maxCount: number, kinds: string) => `Cannot register more than ${maxCount} ${kinds} (BATON_MAX_DEFINITIONS); delete unused ones first`,
  },
  RECORDS_AT_LIMIT: {
    status: 400,
    message: (cap: number, noun: string, setting: string) => `Cannot create more than ${cap} ${noun} (${setting}); delete unused ones first`,
  },
  WORKFLOW_DEF_EXISTS: { status: 409, message: (name: string, version: number) => `Workflow with ${name}.${version} already exists!` },
  WORKFLOW_NAME_NOT_FOUND: { status: 404, message: (name: string) => `No such workflow found by name: ${name}` },
  WORKFLOW_DEF_TO_DELETE_NOT_FOUND: { status: 404, message: (name: string, version: number) => `No such workflow definition: ${name} version: ${version}` },
  TASK_DEF_NOT_FOUND: { status: 404, message: (name: string) => `No such taskType found by name: ${name}` },
  TASK_DEF_TO_DELETE_NOT_FOUND: { status: 404, message: (name: string) => `No such task definition: ${name}` },
  EVENT_HANDLER_EXISTS: { status: 409, message: (name: string) => `EventHandler with name ${name} already exists!` },
  EVENT_HANDLER_NAMES_REPEATED: { status: 400, message: () => 'Event handler names in one request must differ' },
  EVENT_HANDLING_UNAVAILABLE: { status: 501, message: () => 'Event handling is not available in this server' },
  SCHEMAS_UNAVAILABLE: { status: 501, message: () => 'JSON schemas are not available' },
  SCHEMA_NOT_FOUND: { status: 404, message: (schema: string) => `Schema ${schema} not found` },
  SCHEMA_VERSION_INVALID: {
    status: 400,
    message: (version: string) => `Invalid version '${version}'`,
    fields: (version: string) => [{ path: 'version', message: 'must be a positive integer', invalidValue: version }],
  },
  INPUT_SCHEMA_MISSING: { status: 400, message: (schema: string, workflowName: string) => `Input schema ${schema} of workflow ${workflowName} does not exist` },
  WORKFLOW_INPUT_NONCONFORMING: {
    status: 400,
    message: (schema: string, violations: string, _fields: ValidationErrors) => `Workflow input does not conform to the input schema ${schema}: ${violations}`,
    fields: (_schema: string, _violations: string, fields: ValidationErrors) => fields,
  },
  // Request parameters, executions and tasks
  QUERY_PARAM_NOT_BOOLEAN: {
    status: 400,
    message: (name: string, _value: unknown) => `Invalid value for query parameter '${name}': expected true or false`,
    fields: (name: string, value: unknown) => [{ path: name, message: 'must be true or false', invalidValue: value }],
  },
  QUERY_PARAM_NOT_INTEGER: {
    status: 400,
    message: (name: string, _value: unknown) => `Invalid value for query parameter '${name}': expected an integer`,
    fields: (name: string, value: unknown) => [{ path: name, message: 'must be an integer', invalidValue: value }],
  },
  QUERY_PARAM_TOO_SMALL: {
    status: 400,
    message: (name: string, min: number, _value: number) => `${name} must be at least ${min}`,
    fields: (name: string, min: number, value: number) => [{ path: name, message: `must be greater than or equal to ${min}`, invalidValue: value }],
  },
  QUERY_PARAM_TOO_LARGE: {
    status: 400,
    message: (name: string, max: number, _value: number) => `${name} must be at most ${max}`,
    fields: (name: string, max: number, value: number) => [{ path: name, message: `must be less than or equal to ${max}`, invalidValue: value }],
  },
  NAME_INVALID: {
    status: 400,
    message: (param: string, problem: string) => `Invalid value for '${param}': ${problem}`,
    fields: (param: string, problem: string) => [{ path: param, message: problem }],
  },
  RETURN_STRATEGY_INVALID: {
    status: 400,
    message: (value: string, options: string) => `Invalid returnStrategy '${value}'; expected one of ${options}`,
    fields: (value: string, _options: string) => [{ path: 'returnStrategy', message: 'unknown return strategy', invalidValue: value }],
  },
  CONSISTENCY_INVALID: {
    status: 400,
    message: (value: string, options: string) => `Invalid consistency '${value}'; expected one of ${options}`,
    fields: (value: string, _options: string) => [{ path: 'consistency', message: 'unknown consistency', invalidValue: value }],
  },
  IDEMPOTENCY_STRATEGY_INVALID: {
    status: 400,
    message: (value: string, options: string) => `Invalid X-on-conflict '${value}'; expected one of ${options}`,
    fields: (value: string, _options: string) => [{ path: 'X-on-conflict', message: 'unknown idempotency strategy', invalidValue: value }],
  },
  TASK_STATUS_INVALID: { status: 400, message: (status: string, options: string) => `Invalid task status '${status}'; expected one of ${options}` },
  TASK_NO_LONGER_WAITING: { status: 404, message: (ref: string, workflowId: string) => `Task ${ref} of workflow ${workflowId} is no longer waiting` },
  NO_TASK_WAITING_FOR_SIGNAL: { status: 404, message: (workflowId: string) => `No task is waiting for a signal in workflow ${workflowId}` },
  TASK_TYPE_REQUIRED: { status: 400, message: () => "Required query parameter 'taskType' is missing" },
  TASK_LOG_LINE_TOO_LONG: { status: 413, message: (problem: string) => problem },
  TASK_LOG_FULL: { status: 409, message: (problem: string) => problem },
  // External payloads and objects
  EXTERNAL_STORAGE_UNAVAILABLE: { status: 501, message: () => 'External payload storage is not configured on this server' },
  EXTERNAL_STORAGE_REQUEST_INVALID: {
    status: 400,
    message: (problems: string, _fields: ValidationErrors) => `Invalid input - ${problems}`,
    fields: (_problems: string, fields: ValidationErrors) => fields,
  },
  PAYLOAD_PATH_INVALID: {
    status: 400,
    message: (quotedPath: string) => `Invalid input - path must name an external payload (a key under payloads/), got ${quotedPath}`,
  },
  PAYLOAD_FIELD_PATH_INVALID: {
    status: 400,
    message: (field: string, quotedPath: string) => `Invalid input - ${field} must name an external payload (a key under payloads/), got ${quotedPath}`,
  },
  PAYLOAD_MISSING: {
    status: 400,
    message: (path: string, field: string) => `Unable to download payload from external storage path: ${path} (${field}): no object there`,
  },
  EXTERNAL_PAYLOAD_TOO_LARGE: {
    status: 413,
    message: (path: string, bytes: number, maxBytes: number) =>
      `The payload at external storage path: ${path} is ${bytes} bytes, over the permissible limit: ${maxBytes} bytes`,
  },
  PAYLOAD_NOT_OBJECT: {
    status: 400,
    message: (path: string, field: string) => `The payload at external storage path: ${path} (${field}) is not a JSON object`,
  },
  PAYLOAD_TOO_DEEP: {
    status: 400,
    message: (path: string, maxDepth: number) => `The payload at external storage path: ${path} nests deeper than ${maxDepth} levels (BATON_MAX_JSON_DEPTH)`,
  },
  OBJECTS_NOT_SERVED: { status: 404, message: () => 'Objects are not served by Baton here: the object store is a bucket (BATON_OBJECT_STORE=s3)' },
  OBJECT_LINK_EXPIRED: { status: 403, message: () => 'The object link has expired' },
  OBJECT_LINK_INVALID: { status: 403, message: () => 'The object link is not valid for this object and operation' },
  OBJECT_KEY_INVALID: { status: 400, message: (problem: string) => `Invalid object key: ${problem}` },
  OBJECT_NOT_FOUND: { status: 404, message: (key: string) => `No object at ${key}` },
  // Starts, polls and the rest of the API
  NULL_START_INPUT: { status: 400, message: () => 'NULL input passed when starting workflow' },
  START_ADMISSION_REFUSED: { status: 409, message: (reason: string) => reason },
  IDEMPOTENT_START_EXISTS: { status: 409, message: (key: string) => `Workflow with the idempotency key ${key} already exists` },
  PRIORITY_INVALID: {
    status: 400,
    message: (problem: string, _priority: number | undefined) => problem,
    fields: (problem: string, priority: number | undefined) => [{ path: 'priority', message: problem, invalidValue: priority }],
  },
  SKIP_TARGET_REQUIRED: { status: 400, message: () => 'workflowId and taskReferenceName are required' },
  QUERY_PARAM_NOT_JSON_OBJECT: { status: 400, message: (name: string) => `Query parameter '${name}' must be a JSON object` },
  TASK_REFERENCE_REQUIRED: {
    status: 400,
    message: () => 'taskReferenceName is required with a taskResult',
    fields: () => [{ path: 'taskReferenceName', message: 'required with taskResult' }],
  },
  LONG_POLLS_AT_LIMIT: {
    status: 429,
    message: (perClient: number) => `Too many polls in flight from this client: at most ${perClient} at a time (BATON_MAX_LONG_POLLS_PER_CLIENT)`,
  },
  LONG_POLL_TIMEOUT_TOO_LONG: { status: 400, message: (maxSeconds: number) => `Long Poll Timeout value cannot be more than ${maxSeconds} seconds` },
  JSON_TOO_DEEP: { status: 400, message: (max: number) => `JSON body nested deeper than ${max} levels (BATON_MAX_JSON_DEPTH)` },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: (method: string, path: string, allowed: string) => `Method ${method} is not supported on ${path}; supported: ${allowed}`,
  },
  METRICS_OFF: { status: 404, message: () => 'Metrics are off on this server (BATON_METRICS_ENABLED=false)' },
  CONSOLE_NOT_BUILT: { status: 404, message: (index: string) => `The console is not built (no ${index}): run npm run build` },
  BODY_MALFORMED_JSON: { status: 400, message: (detail: string) => `Malformed JSON body: ${detail}` },
  BODY_TOO_LARGE: { status: 413, message: () => 'Request body too large' },
  // Another activation of the workflow's actor wrote first: the next turn reloads, so a retry is safe.
  STALE_WRITE: { status: 503, message: (workflowId: string, rev: number) => `stale write to workflow ${workflowId} at rev ${rev}` },
  EXPRESSION_LIMIT: { status: 400, message: (detail: string) => detail },
  SEARCH_UNAVAILABLE: { status: 503, message: (reason: string) => `Search index unavailable, retry later: ${reason}` },
  QUERY_INVALID: { status: 400, message: (detail: string) => detail },
  SCRIPT_FAILED: { status: 400, message: (detail: string) => detail },
  STORE_PAYLOAD_TOO_LARGE: { status: 413, message: (detail: string) => detail },
  ACTOR_DEACTIVATED: { status: 503, message: (detail: string) => detail },
  HOST_STOPPING: { status: 503, message: () => 'actor host is stopping' },
  // The call or commit left and its answer was lost: it may have run, so a blind retry could run it twice.
  OUTCOME_UNKNOWN: { status: 500, message: (detail: string) => detail },
});

/** A named error's status, message, fields and code, as a BatonError subclass's constructor passes them on. */
export const namedArgs = (e: BatonError) => [e.status, e.message, e.validationErrors, e.code] as const;

export type ErrorName = keyof typeof Errors;
