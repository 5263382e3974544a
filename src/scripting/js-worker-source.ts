import { JAVA_COLLECTIONS_SOURCE, JAVA_METHOD_CALL } from './java-collections-source';

/**
 * The JavaScript half of the script worker (script-worker-source.ts): QuickJS compiled to
 * WebAssembly (quickjs-emscripten). Defines `loadJavaScript()`, which resolves to the handler of one
 * `{source, input}` request (input is JSON text); the reply value is the result as JSON text, or
 * null when JSON.stringify gives undefined (undefined, functions, symbols).
 *
 * The guest sees only the ECMAScript built-ins and `$`; one QuickJS runtime carries the memory and
 * stack limits and every evaluation gets a fresh context, so no global outlives an evaluation.
 * The interrupt handler is the time limit inside the worker; the pool terminates the worker if it is
 * missed (QuickJS polls the handler only every ~10k interpreter ticks, and one tick may be a long builtin).
 * Reads workerData.js `{quickjsModulePath, limits}` and workerData.maxResultBytes.
 */
export const JS_EVALUATOR_SOURCE = String.raw`
const { quickjsModulePath, limits } = workerData.js;
const JAVA_COLLECTIONS = ${JSON.stringify(JAVA_COLLECTIONS_SOURCE)};
const JAVA_METHOD_CALL = new RegExp(${JSON.stringify(JAVA_METHOD_CALL.source)});
const SUSPECT_FAILURES = ['timeout', 'memory', 'stack'];

// QuickJS's own limit misses some allocations in this build (arrays grown by realloc), so its heap may
// not grow past what it had at load plus the limit (a cap in MEMORY_CAPS_SOURCE). A refused
// Memory.grow is a failed malloc, which QuickJS does not always survive cleanly: a worker whose cap
// was hit is retired.
const jsHeapCap = { capBytes: Infinity, hit: false };
const memoryFailure = (detail) => ({
  ok: false,
  fatal: true,
  failure: 'memory',
  message: 'JavaScript evaluation exceeded the memory limit of ' + limits.memoryLimitBytes + ' bytes (' + detail + ')',
});

async function loadJavaScript() {
  const { newQuickJSWASMModule } = require(quickjsModulePath);
  const wasm = await newQuickJSWASMModule();
  const memory = wasm.getWasmMemory();
  jsHeapCap.capBytes = memory.buffer.byteLength + limits.memoryLimitBytes;
  memoryCaps.set(memory, jsHeapCap);
  const newRuntime = () => {
    const runtime = wasm.newRuntime();
    runtime.setMemoryLimit(limits.memoryLimitBytes);
    runtime.setMaxStackSize(limits.maxStackSizeBytes);
    return runtime;
  };
  let runtime = newRuntime();

  return ({ source, input }) => {
    const deadline = Date.now() + limits.timeoutMs;
    let timedOut = false;
    runtime.setInterruptHandler(() => {
      if (Date.now() <= deadline) return false;
      timedOut = true;
      return true;
    });
    let context;
    let outcome;
    jsHeapCap.hit = false;
    try {
      context = runtime.newContext();
      outcome = evaluate(context, source, input, () => timedOut);
    } catch (error) {
      if (jsHeapCap.hit) return memoryFailure('WebAssembly heap cap reached: ' + describe(error));
      // An exception from the host side of the WebAssembly boundary (most often the thread's own
      // stack overflowing inside QuickJS) leaves the heap inconsistent: the worker is replaced.
      const stack = error instanceof RangeError;
      return {
        ok: false,
        fatal: true,
        failure: stack ? 'stack' : 'runtime',
        message: stack
          ? 'JavaScript evaluation exceeded the stack limit of ' + limits.maxStackSizeBytes + ' bytes (host stack exhausted: ' + describe(error) + ')'
          : 'JavaScript engine crashed and was replaced: ' + describe(error),
      };
    }
    if (jsHeapCap.hit) return !outcome.ok && outcome.failure === 'memory' ? { ...outcome, fatal: true } : memoryFailure('WebAssembly heap cap reached');
    try {
      context.dispose();
      runtime.removeInterruptHandler();
      // After an interrupt, out-of-memory or stack overflow the runtime is replaced rather than trusted.
      if (!outcome.ok && SUSPECT_FAILURES.includes(outcome.failure)) {
        runtime.dispose();
        runtime = newRuntime();
      }
    } catch (error) {
      // QuickJS aborts when a runtime cannot be freed cleanly; the instance is then unusable.
      return outcome.ok ? { ok: false, fatal: true, failure: 'runtime', message: 'JavaScript engine crashed and was replaced: ' + describe(error) } : { ...outcome, fatal: true };
    }
    return (outcome.ok && oversized(outcome.value, workerData.maxResultBytes, 'JavaScript')) || outcome;
  };
}

function evaluate(context, source, input, timedOut) {
  // Taken before the guest runs, so a script that replaces JSON cannot change how $ or the result cross.
  const json = context.getProp(context.global, 'JSON');
  const parse = context.getProp(json, 'parse');
  const stringify = context.getProp(json, 'stringify');
  const handles = [json, parse, stringify];
  const settle = (result, phase) => {
    if (result.error) {
      const failure = describeThrown(context, result.error, timedOut(), phase);
      result.error.dispose();
      throw failure;
    }
    handles.push(result.value);
    return result.value;
  };
  try {
    const text = context.newString(input);
    handles.push(text);
    // $ as Conductor's GraalJS scripts see it, for a script that calls a Java List/Map method (java-collections-source.ts).
    const bind = JAVA_METHOD_CALL.test(source) ? settle(context.evalCode(JAVA_COLLECTIONS, 'java-collections.js', { type: 'global' }), 'binding $') : parse;
    const dollar = settle(context.callFunction(bind, context.undefined, text), 'binding $');
    context.setProp(context.global, '$', dollar);
    // Compiled once on its own first, so a SyntaxError thrown while running is not taken for bad syntax.
    settle(context.evalCode(source, 'script.js', { type: 'global', compileOnly: true }), 'compilation');
    const completion = settle(context.evalCode(source, 'script.js', { type: 'global' }), 'evaluation');
    const serialized = settle(context.callFunction(stringify, context.undefined, completion), 'result conversion');
    return { ok: true, value: context.typeof(serialized) === 'string' ? context.getString(serialized) : null };
  } catch (failure) {
    if (failure && failure.guest) return failure.reply;
    throw failure;
  } finally {
    for (const handle of handles) if (handle.alive) handle.dispose();
  }
}

/** Builds the reply for a value the guest threw; marked so evaluate() can tell it from host failures. */
function describeThrown(context, errorHandle, timedOut, phase) {
  const fail = (failure, message) => ({ guest: true, reply: { ok: false, fatal: false, failure, message } });
  if (timedOut) {
    return fail('timeout', 'JavaScript ' + phase + ' exceeded the time limit of ' + limits.timeoutMs + ' ms and was interrupted');
  }
  let name = '';
  let message;
  try {
    const dumped = context.dump(errorHandle);
    if (dumped && typeof dumped === 'object' && typeof dumped.message === 'string') {
      name = typeof dumped.name === 'string' ? dumped.name : '';
      message = dumped.message;
    } else {
      message = 'uncaught ' + safeJson(dumped);
    }
  } catch (error) {
    message = 'uncaught value that could not be read';
  }
  const text = name ? name + ': ' + message : message;
  if (/out of memory/i.test(message)) {
    return fail('memory', 'JavaScript ' + phase + ' exceeded the memory limit of ' + limits.memoryLimitBytes + ' bytes (' + text + ')');
  }
  if (/stack overflow|call stack size/i.test(message)) {
    return fail('stack', 'JavaScript ' + phase + ' exceeded the stack limit of ' + limits.maxStackSizeBytes + ' bytes (' + text + ')');
  }
  if (phase === 'compilation') return fail('syntax', 'JavaScript syntax error: ' + text);
  return fail(phase === 'result conversion' ? 'result' : 'runtime', 'JavaScript error during ' + phase + ': ' + text);
}

function safeJson(value) {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch (error) {
    return String(value);
  }
}
`;
