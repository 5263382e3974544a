/**
 * The fields a search may filter and sort on, per searched record, with the kind of value each holds.
 * Every adapter maps only these names to its own columns/paths, so a field name never reaches SQL or
 * the ES DSL unless it is listed here.
 */
export type SearchTarget = 'workflow' | 'task';

/** keyword: exact text; number: integer/float; time: epoch millis (ISO strings accepted in queries). */
export type FieldKind = 'keyword' | 'number' | 'time';

export const WORKFLOW_SEARCH_FIELDS = {
  workflowId: 'keyword',
  workflowType: 'keyword',
  version: 'number',
  correlationId: 'keyword',
  status: 'keyword',
  startTime: 'time',
  updateTime: 'time',
  endTime: 'time',
  reasonForIncompletion: 'keyword',
  executionTime: 'number',
  event: 'keyword',
  priority: 'number',
  parentWorkflowId: 'keyword',
  createdBy: 'keyword',
} as const satisfies Record<string, FieldKind>;

export const TASK_SEARCH_FIELDS = {
  taskId: 'keyword',
  taskType: 'keyword',
  taskDefName: 'keyword',
  status: 'keyword',
  workflowId: 'keyword',
  workflowType: 'keyword',
  correlationId: 'keyword',
  scheduledTime: 'time',
  startTime: 'time',
  updateTime: 'time',
  endTime: 'time',
  domain: 'keyword',
  reasonForIncompletion: 'keyword',
  executionTime: 'number',
  queueWaitTime: 'number',
  workflowPriority: 'number',
} as const satisfies Record<string, FieldKind>;

export type WorkflowSearchField = keyof typeof WORKFLOW_SEARCH_FIELDS;
export type TaskSearchField = keyof typeof TASK_SEARCH_FIELDS;

const FIELDS: Record<SearchTarget, Readonly<Record<string, FieldKind>>> = {
  workflow: WORKFLOW_SEARCH_FIELDS,
  task: TASK_SEARCH_FIELDS,
};

// Case-insensitive lookup (`workflowtype` finds `workflowType`), built once per target.
const BY_LOWER: Record<SearchTarget, Map<string, string>> = {
  workflow: new Map(Object.keys(WORKFLOW_SEARCH_FIELDS).map((f) => [f.toLowerCase(), f])),
  task: new Map(Object.keys(TASK_SEARCH_FIELDS).map((f) => [f.toLowerCase(), f])),
};

/** The canonical spelling of a searchable field, or undefined when the target has no such field. */
export function canonicalField(target: SearchTarget, name: string): string | undefined {
  return BY_LOWER[target].get(name.toLowerCase());
}

/** Kind of a canonical field name; undefined when it is not searchable for the target. */
export function fieldKind(target: SearchTarget, field: string): FieldKind | undefined {
  return Object.prototype.hasOwnProperty.call(FIELDS[target], field) ? FIELDS[target][field] : undefined;
}

/** Sort used when the request names none: newest first (workflows by start, tasks by scheduling). */
export const DEFAULT_SORT_FIELD: Record<SearchTarget, string> = { workflow: 'startTime', task: 'scheduledTime' };

/** The unique id field, appended to every sort so pages are stable and `search_after` is well defined. */
export const ID_FIELD: Record<SearchTarget, string> = { workflow: 'workflowId', task: 'taskId' };

/** Largest page a search returns (Conductor rejects workflow searches above it). */
export const MAX_SEARCH_SIZE = 5000;
