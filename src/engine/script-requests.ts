import type { ScriptFailure } from '../scripting/script-error';

// Scripts the decider needs evaluated before it can go on (INLINE, LAMBDA, JSON_JQ_TRANSFORM, a
// javascript SWITCH or DECISION, a DO_WHILE condition). The engine never runs them: a turn records
// the request, the actor evaluates it off the event loop and hands the outcome back through
// applyScriptOutcome, within the same turn, before anything is committed.

export type ScriptCall =
  /** A JavaScript expression (or statement list) with `$` bound to the input. */
  | { kind: 'expression'; source: string; input: Record<string, unknown> }
  /** A JavaScript function body using `return` (LAMBDA). */
  | { kind: 'functionBody'; source: string; input: Record<string, unknown> }
  | { kind: 'jq'; query: string; input: Record<string, unknown> };

export interface ScriptRequest {
  taskId: string;
  /** What the result decides: a task's own output, the case of a SWITCH/DECISION, or another loop iteration. */
  purpose: 'taskResult' | 'switchCase' | 'loopCondition';
  /** The DO_WHILE iteration whose condition this is; its outcome is dropped if the loop moved on. */
  iteration?: number;
  call: ScriptCall;
}

export type ScriptOutcome =
  | { ok: true; value: unknown }
  /** `limitMs`: the time limit, for failures that hit it. */
  | { ok: false; failure: ScriptFailure; message: string; limitMs?: number };

/** Conductor's words for a script stopped at its limit (ScriptEvaluator): "Script not evaluated within 4 seconds, interrupted." */
export function scriptTimeoutReason(limitMs: number | undefined): string {
  const within = limitMs === undefined ? 'its time limit' : limitMs % 1000 === 0 ? `${limitMs / 1000} seconds` : `${limitMs} ms`;
  return `Script not evaluated within ${within}, interrupted.`;
}

export type ScriptFailureOutcome = Extract<ScriptOutcome, { ok: false }>;

/** Why an evaluation failed: the time limit and a full pool say the script was not evaluated; otherwise the script's own error. */
export function describeScriptFailure(outcome: ScriptFailureOutcome): string {
  if (outcome.failure === 'timeout') return scriptTimeoutReason(outcome.limitMs);
  if (outcome.failure === 'busy') return `Script not evaluated: ${outcome.message}`;
  return outcome.message;
}

/** The reason of a failed INLINE or LAMBDA task, as Conductor words it: its own errors are "Error evaluating the script". */
export function scriptTaskFailureReason(outcome: ScriptFailureOutcome): string {
  if (outcome.failure === 'timeout' || outcome.failure === 'busy') return describeScriptFailure(outcome);
  return `Error evaluating the script \`${outcome.message}\``;
}
