/**
 * What went wrong in a script or jq evaluation; callers map any of these to a FAILED task.
 * `busy`: no script worker became free in time, so the script never ran.
 */
export type ScriptFailure = 'syntax' | 'runtime' | 'timeout' | 'memory' | 'stack' | 'result' | 'busy';

export class ScriptError extends Error {
  readonly failure: ScriptFailure;

  constructor(failure: ScriptFailure, message: string) {
    super(message);
    this.name = 'ScriptError';
    this.failure = failure;
  }
}

/** The JSON text handed to a worker; `what` names the input in the error ("script", "jq"). */
export function inputToJson(input: unknown, what: string): string {
  try {
    return JSON.stringify(input === undefined ? null : input) ?? 'null';
  } catch (error) {
    throw new ScriptError('runtime', `${what} input is not JSON-serializable: ${error instanceof Error ? error.message : String(error)}`);
  }
}
