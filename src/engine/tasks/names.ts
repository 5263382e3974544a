// The task type names Baton knows (Conductor's TaskType enum, YIELD and FORK included); any other name is a worker's type.
export const TaskTypeName = {
  SIMPLE: 'SIMPLE',
  DYNAMIC: 'DYNAMIC',
  YIELD: 'YIELD',
  HTTP: 'HTTP',
  SWITCH: 'SWITCH',
  DECISION: 'DECISION',
  FORK_JOIN: 'FORK_JOIN',
  FORK: 'FORK',
  FORK_JOIN_DYNAMIC: 'FORK_JOIN_DYNAMIC',
  JOIN: 'JOIN',
  EXCLUSIVE_JOIN: 'EXCLUSIVE_JOIN',
  DO_WHILE: 'DO_WHILE',
  SET_VARIABLE: 'SET_VARIABLE',
  INLINE: 'INLINE',
  LAMBDA: 'LAMBDA',
  JSON_JQ_TRANSFORM: 'JSON_JQ_TRANSFORM',
  NOOP: 'NOOP',
  TERMINATE: 'TERMINATE',
  EVENT: 'EVENT',
  START_WORKFLOW: 'START_WORKFLOW',
  SUB_WORKFLOW: 'SUB_WORKFLOW',
  WAIT: 'WAIT',
  HUMAN: 'HUMAN',
} as const;

export type TaskTypeName = (typeof TaskTypeName)[keyof typeof TaskTypeName];
