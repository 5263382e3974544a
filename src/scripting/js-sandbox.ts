import { BlockingWorker } from './blocking-worker';
import { JS_WORKER_SOURCE } from './js-worker-source';
import { inputToJson, ScriptError } from './script-error';

export interface JsSandboxLimits {
  timeoutMs: number;
  memoryLimitBytes: number;
  maxStackSizeBytes: number;
  startupTimeoutMs: number;
  hardStopGraceMs: number;
}

interface JsRequest {
  source: string;
  input: string;
}

/** V8 heap of the worker itself (QuickJS's heap is WebAssembly memory, bounded by memoryLimitBytes). */
const WORKER_JS_HEAP_MB = 256;

/**
 * JavaScript in QuickJS/WebAssembly, synchronous for the caller. Only JSON crosses the boundary:
 * `$` goes in as JSON text and the completion value comes back through the guest's JSON.stringify.
 */
export class JsSandbox {
  private constructor(
    private readonly worker: BlockingWorker<JsRequest, string | null>,
    private readonly timeoutMs: number,
  ) {}

  static async create(limits: JsSandboxLimits): Promise<JsSandbox> {
    const worker = await BlockingWorker.start<JsRequest, string | null>({
      label: 'JavaScript evaluation',
      source: JS_WORKER_SOURCE,
      workerData: {
        quickjsModulePath: require.resolve('quickjs-emscripten'),
        limits: {
          timeoutMs: limits.timeoutMs,
          memoryLimitBytes: limits.memoryLimitBytes,
          maxStackSizeBytes: limits.maxStackSizeBytes,
        },
      },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_JS_HEAP_MB },
      startupTimeoutMs: limits.startupTimeoutMs,
      hardStopGraceMs: limits.hardStopGraceMs,
    });
    return new JsSandbox(worker, limits.timeoutMs);
  }

  /** Runs `source` as a global script with `$` bound to a copy of `input`; returns its completion value. */
  run(source: string, input: unknown): unknown {
    const result = this.worker.call({ source, input: inputToJson(input, 'script') }, this.timeoutMs);
    return result === null ? null : (JSON.parse(result) as unknown);
  }

  dispose(): void {
    this.worker.dispose();
  }
}

