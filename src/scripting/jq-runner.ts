import { BlockingWorker } from './blocking-worker';
import { JQ_WORKER_SOURCE } from './jq-worker-source';
import { inputToJson, ScriptError } from './script-error';

export interface JqLimits {
  timeoutMs: number;
  /** Cap on jq's WebAssembly heap. */
  memoryLimitBytes: number;
  startupTimeoutMs: number;
  hardStopGraceMs: number;
}

interface JqRequest {
  query: string;
  input: string;
}

/** Heap for the worker's own JavaScript (jq-web buffers output there); on overflow the worker dies, not the server. */
const WORKER_JS_HEAP_MB = 256;

/** jq, synchronous for the caller: it runs in a worker thread that is stopped when it overruns. */
export class JqRunner {
  private constructor(
    private readonly worker: BlockingWorker<JqRequest, string>,
    private readonly timeoutMs: number,
  ) {}

  static async start(limits: JqLimits): Promise<JqRunner> {
    const worker = await BlockingWorker.start<JqRequest, string>({
      label: 'jq query',
      source: JQ_WORKER_SOURCE,
      workerData: { jqModulePath: require.resolve('jq-web'), memoryLimitBytes: limits.memoryLimitBytes },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_JS_HEAP_MB },
      startupTimeoutMs: limits.startupTimeoutMs,
      hardStopGraceMs: limits.hardStopGraceMs,
    });
    return new JqRunner(worker, limits.timeoutMs);
  }

  /** All results of `query` applied to `input`. jq has no deadline of its own: the worker is stopped at the time limit. */
  run(query: string, input: unknown): unknown[] {
    const output = this.worker.call({ query, input: inputToJson(input, 'jq') }, this.timeoutMs);
    return parseOutput(output);
  }

  dispose(): void {
    this.worker.dispose();
  }
}

/** `jq -c` prints one result per line; newlines inside strings are always escaped. */
function parseOutput(output: string): unknown[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}
