/**
 * The jq half of the script worker (script-worker-source.ts): jq 1.7 compiled to WebAssembly
 * (jq-web, .wasm shipped in the package). Defines `loadJq()`, which resolves to the handler of one
 * `{query, input}` request (input is JSON text); the reply value is jq's `-c` output, one result a
 * line. jq has no deadline of its own: the pool terminates the worker at the time limit.
 * Reads workerData.jq `{jqModulePath, memoryLimitBytes}` and workerData.maxResultBytes; its heap cap
 * is the default cap of MEMORY_CAPS_SOURCE (jq-web does not expose its Memory).
 */
export const JQ_EVALUATOR_SOURCE = String.raw`
const JQ_COMPILE_ERROR_EXIT = 3;
// jq 1.7 starts each runtime error line so: "jq: error (at inputString:0): " or "jq: error (at ...) (not a string): ".
const JQ_ERROR_PREFIX = /^jq: error(?: \(at [^)]*\))?(?: \(not a string\))?: /gm;

async function loadJq() {
  const { jqModulePath, memoryLimitBytes } = workerData.jq;
  defaultHeapCap.capBytes = memoryLimitBytes;
  // jq's env builtin shows argv[1] as "_": do not reveal host paths there.
  process.argv = [process.argv[0], 'jq'];
  const jq = await require(jqModulePath);
  return ({ query, input }) => {
    defaultHeapCap.hit = false;
    try {
      const raw = jq.raw(input, query, ['-c']);
      const output = typeof raw === 'string' ? raw : '';
      return oversized(output, workerData.maxResultBytes, 'jq') || { ok: true, value: output };
    } catch (error) {
      const exitCode = error && typeof error.exitCode === 'number' ? error.exitCode : undefined;
      const detail = String((error && (error.stderr || error.message)) || error).trim();
      if (defaultHeapCap.hit) {
        return { ok: false, fatal: true, failure: 'memory', message: 'jq query exceeded the memory limit of ' + memoryLimitBytes + ' bytes (' + detail + ')' };
      }
      if (exitCode === undefined) {
        // An abort inside the WebAssembly instance leaves it unusable.
        return { ok: false, fatal: true, failure: 'runtime', message: 'jq crashed: ' + detail };
      }
      if (exitCode === JQ_COMPILE_ERROR_EXIT) {
        return { ok: false, fatal: false, failure: 'syntax', message: 'jq query does not compile: ' + detail };
      }
      // Conductor's reason is the query's error message alone: jq's "jq: error (at <input>): " goes.
      return { ok: false, fatal: false, failure: 'runtime', message: detail.replace(JQ_ERROR_PREFIX, '') };
    }
  };
}
`;
