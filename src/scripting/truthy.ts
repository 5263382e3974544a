/** JavaScript truthiness of a JSON value returned from the sandbox. */
export function isTruthy(value: unknown): boolean {
  return Boolean(value);
}

/**
 * Conductor's own rule for script conditions (ScriptEvaluator.toBoolean, used by DO_WHILE
 * `loopCondition` and event-handler conditions): a boolean counts as itself, a number is true
 * when > 0, anything else (strings, objects, null) is false.
 */
export function isConductorTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value > 0;
  return false;
}
