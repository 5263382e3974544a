// How each task type runs. Anything not listed is a worker task (USER_DEFINED kept verbatim).

/** Types whose tasks Baton's own system-task workers poll from a queue, like a worker would. */
export const QUEUED_SYSTEM_TYPES = new Set(['HTTP']);
/** Response timeout of a queued system task without a task definition; the worker heartbeats through longer calls. */
export const QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS = 60;

/** Types executed inside the decide loop, completing (or failing) as soon as they are scheduled. */
export const INLINE_TYPES = new Set([
  'SWITCH',
  'DECISION',
  'FORK_JOIN',
  'FORK_JOIN_DYNAMIC',
  'FORK',
  'SET_VARIABLE',
  'INLINE',
  'LAMBDA',
  'JSON_JQ_TRANSFORM',
  'NOOP',
  'TERMINATE',
  'EVENT',
  'START_WORKFLOW',
  'EXCLUSIVE_JOIN',
]);

/** Types re-evaluated at every decision until they finish. */
export const EVALUATED_TYPES = new Set(['JOIN', 'DO_WHILE', 'EXCLUSIVE_JOIN', 'WAIT']);

/** Types that wait IN_PROGRESS for something outside the decider (a person, a child workflow, a signal). */
export const WAITING_TYPES = new Set(['HUMAN', 'WAIT', 'SUB_WORKFLOW']);

/** Never retried automatically (Conductor's TaskType.isBuiltIn). */
export const BUILT_IN_TYPES = new Set(['DECISION', 'SWITCH', 'FORK', 'FORK_JOIN', 'FORK_JOIN_DYNAMIC', 'JOIN', 'EXCLUSIVE_JOIN', 'DO_WHILE']);

const SYSTEM_TYPES = new Set([...QUEUED_SYSTEM_TYPES, ...INLINE_TYPES, ...EVALUATED_TYPES, ...WAITING_TYPES]);

export const isSystemType = (type: string): boolean => SYSTEM_TYPES.has(type);
/** A task a worker (or a system-task worker) takes from a queue. */
export const isQueuedType = (type: string): boolean => !SYSTEM_TYPES.has(type) || QUEUED_SYSTEM_TYPES.has(type);
export const isWorkerType = (type: string): boolean => !SYSTEM_TYPES.has(type);
