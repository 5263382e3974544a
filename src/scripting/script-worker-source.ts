import { JQ_EVALUATOR_SOURCE } from './jq-worker-source';
import { JS_EVALUATOR_SOURCE } from './js-worker-source';
import { WORKER_PROTOCOL_SOURCE } from './worker-protocol-source';

/**
 * Emscripten grows a WebAssembly heap through Memory.grow; refusing growth past a cap makes the
 * guest's allocation fail cleanly instead of taking the worker's memory. Each Memory registered in
 * memoryCaps has its own cap; any other one (jq's) gets defaultHeapCap. `hit` tells a handler that
 * its failure came from the cap.
 */
const MEMORY_CAPS_SOURCE = String.raw`
const memoryCaps = new Map();
const defaultHeapCap = { capBytes: Infinity, hit: false };
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  const cap = memoryCaps.get(this) || defaultHeapCap;
  if (this.buffer.byteLength + pages * 65536 > cap.capBytes) {
    cap.hit = true;
    throw new RangeError('WebAssembly heap cap reached');
  }
  return grow.call(this, pages);
};
`;

/**
 * One worker thread that evaluates both JavaScript and jq, so the pool's size bounds all script
 * CPU at once. Request body: `{kind: 'js', source, input}` or `{kind: 'jq', query, input}`.
 */
export const SCRIPT_WORKER_SOURCE =
  WORKER_PROTOCOL_SOURCE +
  MEMORY_CAPS_SOURCE +
  JS_EVALUATOR_SOURCE +
  JQ_EVALUATOR_SOURCE +
  String.raw`
serve(async () => {
  const javascript = await loadJavaScript();
  const jq = await loadJq();
  // A fresh worker's first evaluation of each kind compiles the WebAssembly it reaches (~20-60 ms, far
  // more while this nice-19 thread waits for a core): paid here, not inside a user's script's time limit.
  // Only a fatal outcome fails the load: a warm-up cut short by the time limit on a starved machine does not.
  for (const reply of [javascript({ source: '$.n + 1', input: '{"n":1}' }), jq({ query: '.n', input: '{"n":1}' })]) {
    if (!reply.ok && reply.fatal) throw new Error('warm-up evaluation failed: ' + reply.message);
  }
  return (body) => (body.kind === 'jq' ? jq(body) : javascript(body));
});
`;
