import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort, ResourceLimits } from 'node:worker_threads';
import { ScriptError } from './script-error';
import type { ScriptFailure } from './script-error';

/** What a worker built with WORKER_PROTOCOL_SOURCE answers to one request. */
export type WorkerReply<T> =
  | { ok: true; value: T }
  | { ok: false; failure: ScriptFailure; message: string; fatal: boolean };

export interface BlockingWorkerOptions {
  /** Says what runs there, in error messages ("JavaScript evaluation", "jq query"). */
  label: string;
  /** JavaScript source of the worker; it must start with WORKER_PROTOCOL_SOURCE and call serve(). */
  source: string;
  workerData: Record<string, unknown>;
  resourceLimits: ResourceLimits;
  /** How long a (re)started worker may take to load before a call gives up. */
  startupTimeoutMs: number;
  /** Added to a call's time limit before the worker is terminated: its own soft limit should win. */
  hardStopGraceMs: number;
}

interface Running {
  worker: Worker;
  port: MessagePort;
  /** [0]: seq of the last reply posted; [1]: 1 loaded, -1 failed to load, 0 loading. */
  signal: Int32Array;
}

/**
 * Protocol shared by every worker source: requests `{seq, body}` arrive on workerData.port; the
 * reply is posted there, then signal[0] = seq is notified, so the caller can block in Atomics.wait
 * and take the reply with receiveMessageOnPort. serve(load) runs async `load()` once and then
 * answers each request with the handler it returned.
 */
export const WORKER_PROTOCOL_SOURCE = String.raw`
'use strict';
const { workerData, parentPort } = require('node:worker_threads');
const signal = new Int32Array(workerData.signal);
// Library diagnostics (Emscripten, jq-web) would reach the server's stderr; replies carry errors instead.
for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) console[level] = () => {};

function describe(error) {
  return error && error.message ? String(error.message) : String(error);
}

function serve(load) {
  Promise.resolve().then(load).then(
    (handle) => {
      workerData.port.on('message', (request) => {
        let body;
        try {
          body = handle(request.body);
        } catch (error) {
          body = { ok: false, failure: 'runtime', fatal: true, message: 'worker failure: ' + describe(error) };
        }
        workerData.port.postMessage({ seq: request.seq, body });
        Atomics.store(signal, 0, request.seq);
        Atomics.notify(signal, 0);
      });
      Atomics.store(signal, 1, 1);
      Atomics.notify(signal, 1);
      parentPort.postMessage(true);
    },
    (error) => {
      Atomics.store(signal, 1, -1);
      Atomics.notify(signal, 1);
      parentPort.postMessage(describe(error));
    },
  );
}
`;

/**
 * A worker thread called synchronously: the caller blocks in Atomics.wait until the reply or the
 * deadline. A worker that overruns its deadline, or reports itself broken, is terminated and a new
 * one starts loading at once.
 */
export class BlockingWorker<Request, Value> {
  private running: Running | undefined;
  private seq = 0;
  private disposed = false;

  private constructor(private readonly options: BlockingWorkerOptions) {}

  /** Resolves once the first worker has loaded, so configuration errors surface here. */
  static async start<Request, Value>(options: BlockingWorkerOptions): Promise<BlockingWorker<Request, Value>> {
    const blocking = new BlockingWorker<Request, Value>(options);
    const { worker } = blocking.spawn();
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (loaded: unknown) =>
        loaded === true ? resolve() : reject(new Error(`${options.label}: worker failed to load: ${String(loaded)}`)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`${options.label}: worker exited while loading (code ${code})`)));
    }).catch((error: unknown) => {
      blocking.dispose();
      throw error;
    });
    return blocking;
  }

  /** Sends `body` and blocks until the reply; throws ScriptError for failures and overruns. */
  call(body: Request, timeoutMs: number): Value {
    if (this.disposed) throw new Error(`${this.options.label}: used after dispose`);
    const target = this.running ?? this.spawn();
    this.awaitLoaded(target);

    const seq = ++this.seq;
    target.port.postMessage({ seq, body });
    const deadline = Date.now() + timeoutMs + this.options.hardStopGraceMs;
    for (;;) {
      const seen = Atomics.load(target.signal, 0);
      if (seen === seq) break;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        this.replace(target);
        throw new ScriptError('timeout', `${this.options.label} exceeded the time limit of ${timeoutMs} ms and was stopped`);
      }
      Atomics.wait(target.signal, 0, seen, remaining);
    }

    const envelope = receiveMessageOnPort(target.port)?.message as { seq: number; body: WorkerReply<Value> } | undefined;
    if (!envelope || envelope.seq !== seq) {
      this.replace(target);
      throw new ScriptError('runtime', `${this.options.label}: worker answered out of turn and was restarted`);
    }
    const reply = envelope.body;
    if (reply.ok) return reply.value;
    if (reply.fatal) this.replace(target);
    throw new ScriptError(reply.failure, reply.message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.running) this.stop(this.running);
    this.running = undefined;
  }

  private awaitLoaded(target: Running): void {
    const deadline = Date.now() + this.options.startupTimeoutMs;
    for (;;) {
      const state = Atomics.load(target.signal, 1);
      if (state === 1) return;
      const remaining = deadline - Date.now();
      if (state === -1 || remaining <= 0) {
        this.replace(target);
        throw new ScriptError(
          'runtime',
          state === -1
            ? `${this.options.label}: worker failed to load`
            : `${this.options.label}: worker did not load within ${this.options.startupTimeoutMs} ms`,
        );
      }
      Atomics.wait(target.signal, 1, state, remaining);
    }
  }

  private spawn(): Running {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
    const worker = new Worker(this.options.source, {
      eval: true,
      workerData: { ...this.options.workerData, port: port2, signal: signal.buffer },
      transferList: [port2],
      resourceLimits: this.options.resourceLimits,
      stdout: true,
      stderr: true,
    });
    // Failures surface to callers as overruns or failed loads; an unhandled 'error' event would crash the server.
    worker.on('error', () => undefined);
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    port1.unref();
    const running: Running = { worker, port: port1, signal };
    worker.once('exit', () => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  /** The replacement starts loading now, while the caller carries on. */
  private replace(target: Running): void {
    this.stop(target);
    if (this.running === target) this.running = undefined;
    if (!this.disposed) this.spawn();
  }

  private stop(target: Running): void {
    target.port.close();
    void target.worker.terminate().catch(() => undefined);
  }
}
