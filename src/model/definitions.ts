import { z } from 'zod';
import { TaskTypeName } from '../engine/tasks/names';
import { literalTimeoutIssues } from './http-request';
import { RetryLogic, TimeoutPolicy, WorkflowTimeoutPolicy } from './statuses';
import { RetentionPolicySchema } from './retention';
import { TagListSchema } from './tags';

// TaskDef, WorkflowDef, WorkflowTask and SubWorkflowParams as Conductor serialises them, with Conductor's defaults.
// Unknown properties are kept (passthrough), as Jackson ignores-but-we-preserve them for round trips.

const jsonObject = z.record(z.string(), z.unknown());
const int = z.number().int();

/** Longest name of a definition, task reference, queue or event handler (Conductor's SQL stores keep names in VARCHAR(255)). */
export const MAX_NAME_LENGTH = 255;
/** C0 and C1 control characters and DEL: never part of a name, and trouble in logs, keys and URLs. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `value` is not acceptable as a name; undefined when it is. */
export function nameProblem(value: string): string | undefined {
  if (value.length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (CONTROL_CHARACTER.test(value)) return 'must not contain control characters';
  return undefined;
}

/** A name field: non-empty (Conductor's message when empty), at most MAX_NAME_LENGTH characters, no control characters. */
export const nameSchema = (what: string, emptyMessage: string) =>
  z
    .string()
    .min(1, emptyMessage)
    .max(MAX_NAME_LENGTH, `${what} must be at most ${MAX_NAME_LENGTH} characters`)
    .refine((v) => !CONTROL_CHARACTER.test(v), `${what} must not contain control characters`);

/** How a workflow or task definition names a JSON schema (`inputSchema`, `outputSchema`): no version means the latest. */
export const SchemaRefSchema = z.looseObject({
  name: z.string({ error: 'schema name cannot be null or empty' }).min(1, 'schema name cannot be null or empty'),
  version: z.number().int().nullish(),
  type: z.enum(['JSON', 'AVRO', 'PROTOBUF'], { error: 'schema type must be one of JSON, AVRO, PROTOBUF' }).nullish(),
});
export type SchemaRef = z.infer<typeof SchemaRefSchema>;
/** The schema fields of workflow and task definitions (Orkes'): a schema named is enforced unless enforceSchema is false. */
const schemaFields = { inputSchema: SchemaRefSchema.nullish(), outputSchema: SchemaRefSchema.nullish(), enforceSchema: z.boolean().nullish() };

const taskDefFields = {
  name: nameSchema('TaskDef name', 'TaskDef name cannot be null or empty'),
  tags: TagListSchema.nullish(),
  description: z.string().optional(),
  retryCount: int.min(0).default(3),
  timeoutSeconds: int.min(0).default(0),
  inputKeys: z.array(z.string()).default([]),
  outputKeys: z.array(z.string()).default([]),
  timeoutPolicy: TimeoutPolicy.default('TIME_OUT_WF'),
  retryLogic: RetryLogic.default('FIXED'),
  retryDelaySeconds: int.min(0).default(60),
  responseTimeoutSeconds: int.min(1).default(3600),
  concurrentExecLimit: int.min(0).nullish(),
  inputTemplate: jsonObject.default({}),
  rateLimitPerFrequency: int.min(0).nullish(),
  rateLimitFrequencyInSeconds: int.min(0).nullish(),
  isolationGroupId: z.string().nullish(),
  executionNameSpace: z.string().nullish(),
  ...schemaFields,
  ownerEmail: z.string().nullish(),
  pollTimeoutSeconds: int.min(0).nullish(),
  backoffScaleFactor: int.min(1).default(1),
  maxRetryDelaySeconds: int.min(0).default(0),
  totalTimeoutSeconds: int.min(0).default(0),
  ownerApp: z.string().nullish(),
  createTime: z.number().default(0),
  updateTime: z.number().default(0),
  createdBy: z.string().nullish(),
  updatedBy: z.string().nullish(),
};

// Conductor binds a workflow task's embedded `taskDefinition` without validating it (WorkflowTask
// holds it without @Valid): it keeps the field types but not the rules of a registered definition
// below (responseTimeoutSeconds against timeoutSeconds; responseTimeoutSeconds 0 means none), and its
// name may be absent: the task's own name stands for it (effectiveTaskDef).
export const EmbeddedTaskDefSchema = z.looseObject({
  ...taskDefFields,
  name: z.string().max(MAX_NAME_LENGTH, `TaskDef name must be at most ${MAX_NAME_LENGTH} characters`).nullish(),
  responseTimeoutSeconds: int.min(0).default(3600),
});
export type EmbeddedTaskDef = z.infer<typeof EmbeddedTaskDefSchema>;

export const TaskDefSchema = z.looseObject(taskDefFields).superRefine((d, ctx) => {
  if (d.timeoutSeconds > 0 && d.responseTimeoutSeconds > d.timeoutSeconds) {
    ctx.addIssue({
      code: 'custom',
      path: ['responseTimeoutSeconds'],
      message: `TaskDef: ${d.name} responseTimeoutSeconds: ${d.responseTimeoutSeconds} must be less than timeoutSeconds: ${d.timeoutSeconds}`,
    });
  }
  // The template of an HTTP task's definition carries its request; its literal timeouts are checked here too.
  for (const m of literalTimeoutIssues(d.inputTemplate.http_request))
    ctx.addIssue({ code: 'custom', path: ['inputTemplate', 'http_request'], message: `TaskDef: ${d.name} http_request.${m}` });
});
export type TaskDef = z.infer<typeof TaskDefSchema>;

export interface WorkflowTask {
  name: string;
  taskReferenceName: string;
  type: string;
  description?: string;
  inputParameters: Record<string, unknown>;
  optional?: boolean;
  /** A failure of the task lets the workflow go on; its JOIN, or the workflow's completion, fails instead. */
  permissive?: boolean;
  startDelay?: number;
  asyncComplete?: boolean;
  retryCount?: number | null;
  taskDefinition?: EmbeddedTaskDef | null;
  // control flow
  dynamicTaskNameParam?: string;
  caseValueParam?: string;
  caseExpression?: string;
  evaluatorType?: string;
  expression?: string;
  decisionCases?: Record<string, WorkflowTask[]>;
  defaultCase?: WorkflowTask[];
  forkTasks?: WorkflowTask[][];
  joinOn?: string[];
  defaultExclusiveJoinTask?: string[];
  dynamicForkTasksParam?: string;
  dynamicForkTasksInputParamName?: string;
  dynamicForkJoinTasksParam?: string;
  loopCondition?: string;
  loopOver?: WorkflowTask[];
  items?: string;
  subWorkflowParam?: SubWorkflowParams;
  sink?: string;
  [key: string]: unknown;
}

export interface SubWorkflowParams {
  name?: string;
  /** A number, or an expression (`${workflow.input.v}`) resolved when the task is scheduled. */
  version?: number | string | null;
  taskToDomain?: Record<string, string>;
  workflowDefinition?: unknown;
  priority?: unknown;
  [key: string]: unknown;
}

export const SubWorkflowParamsSchema: z.ZodType<SubWorkflowParams> = z.looseObject({
  name: z.string().optional(),
  version: z.union([int, z.string()]).nullish(),
  taskToDomain: z.record(z.string(), z.string()).optional(),
  workflowDefinition: z.unknown().optional(),
  priority: z.unknown().optional(),
});

export const WorkflowTaskSchema: z.ZodType<WorkflowTask, unknown> = z.lazy(() =>
  z.looseObject({
    name: nameSchema('WorkflowTask name', 'WorkflowTask name cannot be empty or null'),
    taskReferenceName: nameSchema('WorkflowTask taskReferenceName', 'WorkflowTask taskReferenceName name cannot be empty or null'),
    type: z.string().min(1).default(TaskTypeName.SIMPLE),
    description: z.string().optional(),
    inputParameters: jsonObject.default({}),
    optional: z.boolean().optional(),
    permissive: z.boolean().optional(),
    startDelay: int.min(0).optional(),
    asyncComplete: z.boolean().optional(),
    retryCount: int.min(0).nullish(),
    taskDefinition: EmbeddedTaskDefSchema.nullish(),
    dynamicTaskNameParam: z.string().optional(),
    caseValueParam: z.string().optional(),
    caseExpression: z.string().optional(),
    evaluatorType: z.string().optional(),
    expression: z.string().optional(),
    decisionCases: z.record(z.string(), z.array(WorkflowTaskSchema)).optional(),
    defaultCase: z.array(WorkflowTaskSchema).optional(),
    forkTasks: z.array(z.array(WorkflowTaskSchema)).optional(),
    joinOn: z.array(z.string()).optional(),
    defaultExclusiveJoinTask: z.array(z.string()).optional(),
    dynamicForkTasksParam: z.string().optional(),
    dynamicForkTasksInputParamName: z.string().optional(),
    dynamicForkJoinTasksParam: z.string().optional(),
    loopCondition: z.string().optional(),
    loopOver: z.array(WorkflowTaskSchema).optional(),
    items: z.string().optional(),
    subWorkflowParam: SubWorkflowParamsSchema.optional(),
    sink: z.string().optional(),
  }),
) as unknown as z.ZodType<WorkflowTask, unknown>;

export const WorkflowDefSchema = z
  .looseObject({
    name: nameSchema('WorkflowDef name', 'WorkflowDef name cannot be null or empty'),
    tags: TagListSchema.nullish(),
    description: z.string().nullish(),
    version: int.min(0).default(1),
    tasks: z.array(WorkflowTaskSchema).min(1, 'WorkflowTask list cannot be empty'),
    inputParameters: z.array(z.string()).default([]),
    outputParameters: jsonObject.default({}),
    failureWorkflow: z.string().nullish(),
    failureWorkflowVersion: int.nullish(),
    schemaVersion: int.default(2),
    restartable: z.boolean().default(true),
    workflowStatusListenerEnabled: z.boolean().default(false),
    ...schemaFields,
    ownerEmail: z.string().nullish(),
    ownerApp: z.string().nullish(),
    timeoutPolicy: WorkflowTimeoutPolicy.default('ALERT_ONLY'),
    timeoutSeconds: int.min(0).default(0),
    variables: jsonObject.default({}),
    inputTemplate: jsonObject.default({}),
    createTime: z.number().default(0),
    updateTime: z.number().default(0),
    createdBy: z.string().nullish(),
    updatedBy: z.string().nullish(),
    /** Baton's own field (docs/retention.md): how long finished executions are kept, and whether they are archived. */
    retention: RetentionPolicySchema.optional(),
  })
  .superRefine((def, ctx) => {
    for (const issue of validateWorkflowTree(def.tasks)) ctx.addIssue({ code: 'custom', ...issue });
  });
export type WorkflowDef = z.infer<typeof WorkflowDefSchema>;

/** Walks every task of a definition tree, depth first, including branches, forks and loops. */
export function* walkTasks(tasks: WorkflowTask[]): Generator<WorkflowTask> {
  for (const t of tasks) {
    yield t;
    for (const branch of Object.values(t.decisionCases ?? {})) yield* walkTasks(branch);
    if (t.defaultCase) yield* walkTasks(t.defaultCase);
    for (const branch of t.forkTasks ?? []) yield* walkTasks(branch);
    if (t.loopOver) yield* walkTasks(t.loopOver);
  }
}

interface TreeIssue {
  path: (string | number)[];
  message: string;
}

// Registration-time checks of Conductor's WorkflowTaskTypeConstraint and TaskReferenceNameUniqueConstraint.
function validateWorkflowTree(tasks: WorkflowTask[]): TreeIssue[] {
  const issues: TreeIssue[] = [];
  const seen = new Set<string>();
  for (const t of walkTasks(tasks)) {
    const ref = t.taskReferenceName;
    const at = ['tasks', ref];
    if (seen.has(ref)) issues.push({ path: at, message: `taskReferenceName: ${ref} should be unique across tasks for a given workflowDefinition` });
    seen.add(ref);
    switch (t.type) {
      case TaskTypeName.SWITCH:
        if (!t.evaluatorType) issues.push({ path: at, message: `evaluatorType should be set for task: ${ref}` });
        if (!t.expression) issues.push({ path: at, message: `expression should be set for task: ${ref}` });
        if (!t.decisionCases || Object.keys(t.decisionCases).length === 0)
          issues.push({ path: at, message: `decisionCases should have atleast one task for task: ${ref}` });
        break;
      case TaskTypeName.DECISION:
        if (!t.caseValueParam && !t.caseExpression) issues.push({ path: at, message: `caseValueParam or caseExpression field is required for task: ${ref}` });
        if (!t.decisionCases || Object.keys(t.decisionCases).length === 0)
          issues.push({ path: at, message: `decisionCases should have atleast one task for task: ${ref}` });
        break;
      case TaskTypeName.DO_WHILE:
        if (!t.loopCondition) issues.push({ path: at, message: `loopCondition field is required for task: ${ref}` });
        if (!t.loopOver || t.loopOver.length === 0) issues.push({ path: at, message: `loopOver field is required for task: ${ref}` });
        break;
      case TaskTypeName.DYNAMIC:
        if (!t.dynamicTaskNameParam) issues.push({ path: at, message: `dynamicTaskNameParam field is required for task: ${ref}` });
        break;
      case TaskTypeName.FORK_JOIN:
        if (!t.forkTasks || t.forkTasks.length === 0) issues.push({ path: at, message: `forkTasks should have atleast one task for task: ${ref}` });
        break;
      case TaskTypeName.FORK_JOIN_DYNAMIC: {
        const ip = t.inputParameters ?? {};
        const simpleForm = 'forkTaskName' in ip || 'forkTaskWorkflow' in ip || 'forkTaskInputs' in ip;
        if (!simpleForm && !t.dynamicForkJoinTasksParam && !(t.dynamicForkTasksParam && t.dynamicForkTasksInputParamName))
          issues.push({ path: at, message: `dynamicForkTasksParam and dynamicForkTasksInputParamName are required for task: ${ref}` });
        break;
      }
      case TaskTypeName.EVENT:
        if (!t.sink) issues.push({ path: at, message: `sink field is required for task: ${ref}` });
        break;
      case TaskTypeName.SUB_WORKFLOW:
        if (!t.subWorkflowParam) issues.push({ path: at, message: `subWorkflowParam field is required for task: ${ref}` });
        break;
      case TaskTypeName.JSON_JQ_TRANSFORM:
        if (!t.inputParameters || !('queryExpression' in t.inputParameters)) issues.push({ path: at, message: `queryExpression is required for task: ${ref}` });
        break;
      case TaskTypeName.TERMINATE: {
        if (t.optional) issues.push({ path: at, message: `terminate task cannot be optional, taskName: ${t.name}` });
        const s = t.inputParameters?.terminationStatus;
        if (typeof s === 'string' && !s.includes('${') && !['COMPLETED', 'FAILED', 'TERMINATED'].includes(s))
          issues.push({ path: at, message: `terminationStatus should be one of COMPLETED, FAILED, TERMINATED for task: ${ref}` });
        break;
      }
      case TaskTypeName.WAIT: {
        const ip = t.inputParameters ?? {};
        if (ip.duration !== undefined && ip.until !== undefined)
          issues.push({ path: at, message: `Both 'duration' and 'until' specified for task: ${ref}; only one is allowed` });
        break;
      }
      case TaskTypeName.HTTP: {
        const ip = t.inputParameters ?? {};
        const tmpl = t.taskDefinition?.inputTemplate ?? {};
        if (!('http_request' in ip) && !('uri' in ip) && !('http_request' in tmpl))
          issues.push({ path: at, message: `inputParameters.http_request field is required for task: ${ref}` });
        for (const spec of [ip.http_request ?? ip, tmpl.http_request])
          for (const m of literalTimeoutIssues(spec)) issues.push({ path: at, message: `http_request.${m} for task: ${ref}` });
        break;
      }
      default:
        break;
    }
  }
  return issues;
}
