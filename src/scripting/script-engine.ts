import { JqRunner } from './jq-runner';
import { JsSandbox } from './js-sandbox';

export { ScriptError } from './script-error';
export type { ScriptFailure } from './script-error';

export interface ScriptEngine {
  /** Evaluates a JS expression (or an expression statement like an IIFE) with `$` bound to a deep copy of `input`; returns a JSON value. Throws ScriptError. */
  evalExpression(expression: string, input: unknown): unknown;
  /** Evaluates a JS function body (LAMBDA `scriptExpression`, uses `return`). */
  evalFunctionBody(body: string, input: unknown): unknown;
  /** jq: all results of `query` applied to `input`. Throws ScriptError. */
  jq(query: string, input: unknown): unknown[];
  dispose(): void;
}

export interface ScriptEngineOptions {
  /** Per evaluation, JavaScript and jq alike; Conductor's default script limit is 4 s. */
  timeoutMs?: number;
  /** QuickJS heap (its runtime memory limit; the WebAssembly heap is capped at the same size above its start). */
  memoryLimitBytes?: number;
  /** QuickJS stack; deep recursion fails with a ScriptError instead of overflowing the thread. */
  maxStackSizeBytes?: number;
  /** jq's WebAssembly heap; jq needs more than the JS sandbox to hold a parsed input. */
  jqMemoryLimitBytes?: number;
}

const MiB = 1024 * 1024;
export const SCRIPT_DEFAULTS = {
  timeoutMs: 4000,
  memoryLimitBytes: 32 * MiB,
  maxStackSizeBytes: 256 * 1024,
  jqMemoryLimitBytes: 256 * MiB,
  /** A worker (re)started after an overrun may take this long to load before a call gives up. */
  workerStartupTimeoutMs: 30_000,
  /** Past the time limit, QuickJS's own interrupt gets this long before its worker is terminated. */
  hardStopGraceMs: 250,
} as const;

/** Conductor's LAMBDA wraps `scriptExpression` the same way (§3.3); newlines keep a trailing `//` comment inside. */
function functionBodyScript(body: string): string {
  return `function scriptFun() {\n${body}\n}\nscriptFun();`;
}

/**
 * Loads both WebAssembly engines, each in its own worker thread; every evaluation after this
 * resolves is synchronous (the caller blocks until the result or the time limit).
 */
export async function createScriptEngine(opts: ScriptEngineOptions = {}): Promise<ScriptEngine> {
  const timeoutMs = opts.timeoutMs ?? SCRIPT_DEFAULTS.timeoutMs;
  const [sandbox, jqRunner] = await Promise.allSettled([
    JsSandbox.create({
      timeoutMs,
      memoryLimitBytes: opts.memoryLimitBytes ?? SCRIPT_DEFAULTS.memoryLimitBytes,
      maxStackSizeBytes: opts.maxStackSizeBytes ?? SCRIPT_DEFAULTS.maxStackSizeBytes,
      startupTimeoutMs: SCRIPT_DEFAULTS.workerStartupTimeoutMs,
      hardStopGraceMs: SCRIPT_DEFAULTS.hardStopGraceMs,
    }),
    JqRunner.start({
      timeoutMs,
      memoryLimitBytes: opts.jqMemoryLimitBytes ?? SCRIPT_DEFAULTS.jqMemoryLimitBytes,
      startupTimeoutMs: SCRIPT_DEFAULTS.workerStartupTimeoutMs,
      // jq has no deadline of its own: its worker is stopped right at the limit.
      hardStopGraceMs: 0,
    }),
  ]).then(([js, jq]) => {
    if (js.status === 'fulfilled' && jq.status === 'fulfilled') return [js.value, jq.value] as const;
    if (js.status === 'fulfilled') js.value.dispose();
    if (jq.status === 'fulfilled') jq.value.dispose();
    throw js.status === 'rejected' ? js.reason : (jq as PromiseRejectedResult).reason;
  });
  return {
    evalExpression: (expression, input) => sandbox.run(expression, input),
    evalFunctionBody: (body, input) => sandbox.run(functionBodyScript(body), input),
    jq: (query, input) => jqRunner.run(query, input),
    dispose: () => {
      sandbox.dispose();
      jqRunner.dispose();
    },
  };
}
