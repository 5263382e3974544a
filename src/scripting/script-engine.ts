import { inputToJson } from './script-error';
import { SCRIPT_WORKER_SOURCE } from './script-worker-source';
import { WorkerPool } from './worker-pool';

export { ScriptError } from './script-error';
export type { ScriptFailure } from './script-error';

/**
 * JavaScript and jq evaluation. Every evaluation runs in a pool of worker threads, so the caller's
 * event loop stays free while it runs: each method returns a promise that settles with the result
 * or rejects with a ScriptError (its own error, a time, memory or stack limit, a full pool).
 */
export interface ScriptEngine {
  /** Evaluates a JS expression (or an expression statement like an IIFE) with `$` bound to a deep copy of `input`; resolves to a JSON value. */
  evalExpression(expression: string, input: unknown): Promise<unknown>;
  /** Evaluates a JS function body (LAMBDA `scriptExpression`, uses `return`). */
  evalFunctionBody(body: string, input: unknown): Promise<unknown>;
  /** jq: all results of `query` applied to `input`. */
  jq(query: string, input: unknown): Promise<unknown[]>;
  /** The time limit of one evaluation, as configured. */
  readonly timeoutMs: number;
  dispose(): Promise<void>;
}

export interface ScriptEngineOptions {
  /** Per evaluation, JavaScript and jq alike; Conductor's script limit is 4 s. */
  timeoutMs?: number;
  /** QuickJS heap (its runtime memory limit; the WebAssembly heap is capped at the same size above its start). */
  memoryLimitBytes?: number;
  /** QuickJS stack; deep recursion fails with a ScriptError instead of overflowing the thread. */
  maxStackSizeBytes?: number;
  /** jq's WebAssembly heap; jq needs more than the JS sandbox to hold a parsed input. */
  jqMemoryLimitBytes?: number;
  /** Worker threads, so at most this many evaluations run (and spin a core) at once. */
  workers?: number;
  /** How long an evaluation may wait for a free worker before it fails. */
  queueTimeoutMs?: number;
  /** Largest result (its JSON text) a worker hands back; larger ones fail inside the worker. */
  maxResultBytes?: number;
}

const MiB = 1024 * 1024;
export const SCRIPT_DEFAULTS = {
  timeoutMs: 4000,
  memoryLimitBytes: 32 * MiB,
  maxStackSizeBytes: 256 * 1024,
  jqMemoryLimitBytes: 256 * MiB,
  workers: 2,
  queueTimeoutMs: 30_000,
  maxResultBytes: 3 * MiB,
  /** A worker (re)started after an overrun may take this long to load before it is replaced. */
  workerStartupTimeoutMs: 30_000,
  /** Past the time limit, QuickJS's own interrupt gets this long before its worker is terminated. */
  hardStopGraceMs: 250,
} as const;

/** V8 heap of each worker itself (the guests' heaps are WebAssembly memory with their own caps). */
const WORKER_JS_HEAP_MB = 256;

/** Conductor's LAMBDA wraps `scriptExpression` the same way (its Lambda task); newlines keep a trailing `//` comment inside. */
function functionBodyScript(body: string): string {
  return `function scriptFun() {\n${body}\n}\nscriptFun();`;
}

/** `jq -c` prints one result per line; newlines inside strings are always escaped. */
function parseJqOutput(output: string): unknown[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Starts the worker pool; resolves once every worker has loaded both WebAssembly engines. */
export async function createScriptEngine(opts: ScriptEngineOptions = {}): Promise<ScriptEngine> {
  const timeoutMs = opts.timeoutMs ?? SCRIPT_DEFAULTS.timeoutMs;
  const pool = await WorkerPool.start({
    size: opts.workers ?? SCRIPT_DEFAULTS.workers,
    source: SCRIPT_WORKER_SOURCE,
    workerData: {
      maxResultBytes: opts.maxResultBytes ?? SCRIPT_DEFAULTS.maxResultBytes,
      js: {
        quickjsModulePath: require.resolve('quickjs-emscripten'),
        limits: {
          timeoutMs,
          memoryLimitBytes: opts.memoryLimitBytes ?? SCRIPT_DEFAULTS.memoryLimitBytes,
          maxStackSizeBytes: opts.maxStackSizeBytes ?? SCRIPT_DEFAULTS.maxStackSizeBytes,
        },
      },
      jq: { jqModulePath: require.resolve('jq-web'), memoryLimitBytes: opts.jqMemoryLimitBytes ?? SCRIPT_DEFAULTS.jqMemoryLimitBytes },
    },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_JS_HEAP_MB },
    startupTimeoutMs: SCRIPT_DEFAULTS.workerStartupTimeoutMs,
    queueTimeoutMs: opts.queueTimeoutMs ?? SCRIPT_DEFAULTS.queueTimeoutMs,
  });

  const javascript = async (source: string, input: unknown): Promise<unknown> => {
    const body = { kind: 'js', source, input: inputToJson(input, 'script') };
    const result = await pool.run<string | null>({ label: 'JavaScript evaluation', body, limitMs: timeoutMs, graceMs: SCRIPT_DEFAULTS.hardStopGraceMs });
    return result === null ? null : (JSON.parse(result) as unknown);
  };
  return {
    timeoutMs,
    evalExpression: (expression, input) => javascript(expression, input),
    evalFunctionBody: (body, input) => javascript(functionBodyScript(body), input),
    jq: async (query, input) => {
      const body = { kind: 'jq', query, input: inputToJson(input, 'jq') };
      // jq has no deadline of its own: its worker is stopped right at the limit.
      return parseJqOutput(await pool.run<string>({ label: 'jq query', body, limitMs: timeoutMs, graceMs: 0 }));
    },
    dispose: () => pool.dispose(),
  };
}
