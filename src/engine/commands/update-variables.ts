import { ownValue, setOwn } from '../../lib/own-property';
import { isTerminalWorkflow } from '../../model/statuses';
import { Errors } from '../../model/named-errors';
import type { Turn } from '../state';

// Workflow variables changed from outside the decide loop (the `update_workflow_variables` event
// action). Conductor's model has this action but never runs it; Baton does.

/**
 * The variables after an update. Each key replaces the old value, except with `appendArray`: then a
 * key whose current value is an array gets the new value appended (an array value's elements one by
 * one), and a key without a value starts a one-element array unless the new value is an array.
 */
export function mergeVariables(current: Record<string, unknown>, update: Record<string, unknown>, appendArray: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) {
    const old = ownValue(out, key);
    if (!appendArray) setOwn(out, key, value);
    else if (Array.isArray(old)) setOwn(out, key, [...old, ...(Array.isArray(value) ? value : [value])]);
    else if (old === undefined) setOwn(out, key, Array.isArray(value) ? value : [value]);
    else setOwn(out, key, value);
  }
  return out;
}

/** Applies a variables update to a running or paused execution; an ended one cannot change. */
export function updateVariables(turn: Turn, update: Record<string, unknown>, appendArray: boolean): Record<string, unknown> {
  const wf = turn.state.workflow;
  if (isTerminalWorkflow(wf.status)) throw Errors.WORKFLOW_VARIABLES_FINAL(wf.workflowId, wf.status);
  wf.variables = mergeVariables(wf.variables ?? {}, update, appendArray);
  turn.log.workflowChanged = true;
  return wf.variables;
}
