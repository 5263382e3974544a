import { WORKER_PROTOCOL_SOURCE } from './blocking-worker';

/**
 * Worker that runs jq (jq-web: jq 1.7 compiled to WebAssembly, .wasm shipped in the package).
 * Plain JavaScript text, so the same worker starts from the ts sources under jest and from dist.
 * Request body `{query, input}` (input is JSON text); reply value is jq's `-c` output, one result a line.
 */
export const JQ_WORKER_SOURCE =
  WORKER_PROTOCOL_SOURCE +
  String.raw`
const { jqModulePath, memoryLimitBytes } = workerData;
// jq's env builtin shows argv[1] as "_": do not reveal host paths there.
process.argv = [process.argv[0], 'jq'];

// Emscripten grows its heap through Memory.grow; refusing growth past the limit makes jq fail cleanly.
let memoryRefused = false;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65536 > memoryLimitBytes) {
    memoryRefused = true;
    throw new RangeError('jq memory limit reached');
  }
  return grow.call(this, pages);
};

const JQ_COMPILE_ERROR_EXIT = 3;

serve(async () => {
  const jq = await require(jqModulePath);
  return ({ query, input }) => {
    memoryRefused = false;
    try {
      const output = jq.raw(input, query, ['-c']);
      return { ok: true, value: typeof output === 'string' ? output : '' };
    } catch (error) {
      const exitCode = error && typeof error.exitCode === 'number' ? error.exitCode : undefined;
      const detail = String((error && (error.stderr || error.message)) || error).trim();
      if (memoryRefused) {
        return { ok: false, fatal: true, failure: 'memory', message: 'jq query exceeded the memory limit of ' + memoryLimitBytes + ' bytes (' + detail + ')' };
      }
      if (exitCode === undefined) {
        // An abort inside the WebAssembly instance leaves it unusable.
        return { ok: false, fatal: true, failure: 'runtime', message: 'jq crashed: ' + detail };
      }
      if (exitCode === JQ_COMPILE_ERROR_EXIT) {
        return { ok: false, fatal: false, failure: 'syntax', message: 'jq query does not compile: ' + detail };
      }
      return { ok: false, fatal: false, failure: 'runtime', message: 'jq query failed: ' + detail };
    }
  };
});
`;
