import { BatonError } from '../model/errors';
import { Errors, namedArgs } from '../model/named-errors';

/**
 * What went wrong in a script or jq evaluation; callers map any of these to a FAILED task.
 * `busy`: no script worker became free in time, so the script never ran.
 */
export type ScriptFailure = 'syntax' | 'runtime' | 'timeout' | 'memory' | 'stack' | 'result' | 'busy';

/** A 400 when it answers a request (a script in a definition being tried out); a FAILED task inside a turn. */
export class ScriptError extends BatonError {
  readonly failure: ScriptFailure;

  constructor(failure: ScriptFailure, message: string) {
    super(...namedArgs(Errors.SCRIPT_FAILED(message)));
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
