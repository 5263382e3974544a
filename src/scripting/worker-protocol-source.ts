import type { ScriptFailure } from './script-error';

/** What a worker built on WORKER_PROTOCOL_SOURCE answers to one request. */
export type WorkerReply<T> = { ok: true; value: T } | { ok: false; failure: ScriptFailure; message: string; fatal: boolean };

/** Messages a worker posts on its parent port. */
export type WorkerMessage = { type: 'loaded' } | { type: 'loadFailed'; message: string } | { type: 'reply'; seq: number; reply: WorkerReply<unknown> };

/**
 * Protocol shared by worker sources: requests `{seq, body}` arrive on the parent port, one at a
 * time; each reply is posted back with the same seq. serve(load) runs async `load()` once, reports
 * `loaded` (or `loadFailed`), then answers each request with the handler `load()` returned. A
 * handler that throws is reported as fatal, so the pool replaces the worker.
 * Plain JavaScript text, so workers start the same way from the ts sources under jest and from dist.
 */
export const WORKER_PROTOCOL_SOURCE = String.raw`
'use strict';
const { workerData, parentPort } = require('node:worker_threads');
// Library diagnostics (Emscripten, jq-web) would reach the server's stderr; replies carry errors instead.
for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) console[level] = () => {};
// A spinning script yields the CPU to the server's own thread: on Linux each thread has its own nice
// value (elsewhere setpriority would lower the whole process, so it is left alone).
if (process.platform === 'linux') {
  try {
    require('node:os').setPriority(19);
  } catch (error) {
    // Not permitted in this container: the scripts keep the normal priority.
  }
}

function describe(error) {
  return error && error.message ? String(error.message) : String(error);
}

function serve(load) {
  Promise.resolve().then(load).then(
    (handle) => {
      parentPort.on('message', (request) => {
        let reply;
        try {
          reply = handle(request.body);
        } catch (error) {
          reply = { ok: false, failure: 'runtime', fatal: true, message: 'worker failure: ' + describe(error) };
        }
        parentPort.postMessage({ type: 'reply', seq: request.seq, reply });
      });
      parentPort.postMessage({ type: 'loaded' });
    },
    (error) => parentPort.postMessage({ type: 'loadFailed', message: describe(error) }),
  );
}

/** Refuses a result whose JSON text is larger than the limit: the server would have to parse it on its own thread. */
function oversized(text, limitBytes, what) {
  if (typeof text !== 'string' || text.length * 3 <= limitBytes) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= limitBytes) return undefined;
  return { ok: false, fatal: false, failure: 'result', message: what + ' result of ' + bytes + ' bytes exceeds the limit of ' + limitBytes + ' bytes' };
}
`;
