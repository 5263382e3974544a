import { applyScriptOutcome, scriptStillWanted } from '../engine/commands/script-outcome';
import type { ScriptCall, ScriptOutcome } from '../engine/script-requests';
import type { EngineEnv, Turn } from '../engine/state';
import { ScriptError, type ScriptEngine } from '../scripting/script-engine';

// The scripts a turn asked for run here, in the script workers, while the actor's turn awaits them:
// the event loop serves everything else meanwhile. Outcomes go back to the decider in the order the
// requests were made, and whatever they schedule may ask for more, until no script is pending.

/** One evaluation; a ScriptError becomes a failed outcome, anything else (workers stopped) rejects. */
export async function evaluateScript(scripts: ScriptEngine, call: ScriptCall): Promise<ScriptOutcome> {
  try {
    switch (call.kind) {
      case 'expression':
        return { ok: true, value: await scripts.evalExpression(call.source, call.input) };
      case 'functionBody':
        return { ok: true, value: await scripts.evalFunctionBody(call.source, call.input) };
      case 'jq':
        return { ok: true, value: await scripts.jq(call.query, call.input) };
    }
  } catch (e) {
    if (!(e instanceof ScriptError)) throw e;
    return { ok: false, failure: e.failure, message: e.message, ...(e.failure === 'timeout' ? { limitMs: scripts.timeoutMs } : {}) };
  }
}

/**
 * Evaluates every script the turn asked for and applies the outcomes, round after round, until none
 * is pending. Each round after an await reads a fresh environment (the time has moved) and starts a
 * fresh JSONPath budget (the loop was free while it waited).
 */
export async function settleScripts(turn: Turn, scripts: ScriptEngine, nextEnv: () => EngineEnv): Promise<void> {
  for (;;) {
    const batch = turn.log.dispatchScripts();
    if (batch.length === 0) return;
    const outcomes = await Promise.all(batch.map((request) => (scriptStillWanted(turn.state, request) ? evaluateScript(scripts, request.call) : undefined)));
    turn.env = nextEnv();
    turn.log.resetJsonPathBudget();
    batch.forEach((request, i) => {
      const outcome = outcomes[i];
      if (outcome) applyScriptOutcome(turn, request, outcome);
      else turn.log.settleScript(request);
    });
  }
}
