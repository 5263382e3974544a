import { createScriptEngine, ScriptError } from '../../../src/scripting/script-engine';
import type { ScriptEngine, ScriptFailure } from '../../../src/scripting/script-engine';

/** Awaits `run` expecting a ScriptError; returns it so a test can look at its failure and message. */
async function scriptErrorOf(run: () => Promise<unknown>): Promise<ScriptError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ScriptError) return error;
    throw new Error(`expected a ScriptError, got ${String(error)}`);
  }
  throw new Error('expected a ScriptError, but the evaluation succeeded');
}

async function expectFailure(run: () => Promise<unknown>, failure: ScriptFailure, message: RegExp): Promise<void> {
  const error = await scriptErrorOf(run);
  expect(error.failure).toBe(failure);
  expect(error.message).toMatch(message);
}

describe('ScriptEngine with default limits', () => {
  let engine: ScriptEngine;
  beforeAll(async () => {
    engine = await createScriptEngine();
  });
  afterAll(() => engine.dispose());

  describe('JavaScript results', () => {
    it('computes arithmetic and object results from $', async () => {
      expect(await engine.evalExpression('$.a + $.b', { a: 1, b: 2 })).toBe(3);
      expect(await engine.evalExpression('({ sum: $.a + $.b, list: [$.a, "x"], nested: { ok: true } })', { a: 1, b: 2 })).toEqual({
        sum: 3,
        list: [1, 'x'],
        nested: { ok: true },
      });
    });

    it("evaluates a DO_WHILE condition like $.loop['iteration'] < 3", async () => {
      const condition = "$.loop['iteration'] < 3";
      expect(await engine.evalExpression(condition, { loop: { iteration: 2, '1': { l1: {} } } })).toBe(true);
      expect(await engine.evalExpression(condition, { loop: { iteration: 3 } })).toBe(false);
    });

    it('supports the IIFE and named-function script forms used in Conductor definitions', async () => {
      expect(await engine.evalExpression('(function(){ return $.x * 2; })()', { x: 21 })).toBe(42);
      expect(await engine.evalExpression('function e() { if ($.x > 1) { return "big"; } return "small"; } e();', { x: 5 })).toBe('big');
      expect(await engine.evalExpression('[1, 2, 3].map(v => v * $.x)', { x: 2 })).toEqual([2, 4, 6]);
    });

    it('evaluates a LAMBDA function body with return, even ending in a line comment', async () => {
      const body = 'if ($.input.a == 1) { return { testvalue: true }; } else { return { testvalue: false }; } // done';
      expect(await engine.evalFunctionBody(body, { input: { a: 1 } })).toEqual({ testvalue: true });
      expect(await engine.evalFunctionBody(body, { input: { a: 2 } })).toEqual({ testvalue: false });
      expect(await engine.evalFunctionBody('const n = $.n;', { n: 1 })).toBeNull();
    });

    it('returns SWITCH-style case strings', async () => {
      const expression = "$.inputValue == 1 ? 'one' : ($.inputValue == 2 ? 'two' : 'other')";
      expect(await engine.evalExpression(expression, { inputValue: 1 })).toBe('one');
      expect(await engine.evalExpression(expression, { inputValue: 7 })).toBe('other');
    });

    it('converts results through JSON: undefined, functions and symbols become null, dates ISO strings', async () => {
      expect(await engine.evalExpression('undefined', {})).toBeNull();
      expect(await engine.evalExpression('(function () {})', {})).toBeNull();
      expect(await engine.evalExpression("Symbol('s')", {})).toBeNull();
      expect(await engine.evalExpression('new Date(0)', {})).toBe('1970-01-01T00:00:00.000Z');
      expect(await engine.evalExpression('({ f: function () {}, u: undefined, n: NaN, k: 1 })', {})).toEqual({ n: null, k: 1 });
    });

    it('binds $ as a plain JSON object and a copy of the input', async () => {
      const input = { nested: { x: 1 }, list: [1, 2] };
      expect(
        await engine.evalExpression('Object.getPrototypeOf($) === Object.prototype && Array.isArray($.list) && typeof $.nested.x === "number"', input),
      ).toBe(true);
      expect(await engine.evalExpression('$.nested.x = 99; $.list.push(3); $', input)).toEqual({ nested: { x: 99 }, list: [1, 2, 3] });
      expect(input).toEqual({ nested: { x: 1 }, list: [1, 2] });
      expect(await engine.evalExpression('$', undefined)).toBeNull();
    });
  });

  describe('JavaScript errors', () => {
    it('reports a syntax error', async () => {
      await expectFailure(() => engine.evalExpression('1 +', {}), 'syntax', /syntax error/i);
      await expectFailure(() => engine.evalFunctionBody('return (', {}), 'syntax', /syntax error/i);
    });

    it('reports errors thrown at run time, including SyntaxErrors raised while running', async () => {
      await expectFailure(() => engine.evalExpression("throw new Error('boom')", {}), 'runtime', /Error: boom/);
      await expectFailure(() => engine.evalExpression("throw 'plain'", {}), 'runtime', /plain/);
      await expectFailure(() => engine.evalExpression("JSON.parse('{')", {}), 'runtime', /SyntaxError/);
      await expectFailure(() => engine.evalExpression('$.missing.deeper', {}), 'runtime', /TypeError/);
    });

    it('reports results that JSON cannot carry', async () => {
      await expectFailure(() => engine.evalExpression('10n', {}), 'result', /BigInt/);
    });

    it('refuses a memory bomb and keeps working afterwards', async () => {
      await expectFailure(() => engine.evalExpression('let a = []; while (true) a.push(new Array(1e6).fill(1))', {}), 'memory', /memory limit/);
      await expectFailure(() => engine.evalExpression("'x'.repeat(1e8).length", {}), 'memory', /memory limit/);
      expect(await engine.evalExpression('1 + 1', {})).toBe(2);
    });

    it('stops runaway recursion at the stack limit and keeps working afterwards', async () => {
      await expectFailure(() => engine.evalExpression('function f() { return f() + 1; } f()', {}), 'stack', /stack limit/);
      expect(await engine.evalExpression('2 + 2', {})).toBe(4);
    });
  });

  describe('JavaScript sandbox', () => {
    it('has no require, process, timers, fetch, console or WebAssembly', async () => {
      const names = [
        'require',
        'process',
        'module',
        'setTimeout',
        'setInterval',
        'setImmediate',
        'queueMicrotask',
        'fetch',
        'XMLHttpRequest',
        'console',
        'WebAssembly',
        'std',
        'os',
        'Buffer',
      ];
      const types = await engine.evalExpression(`[${names.map((n) => `typeof ${n}`).join(', ')}]`, {});
      expect(types).toEqual(names.map(() => 'undefined'));
    });

    it('refuses escape attempts', async () => {
      await expectFailure(() => engine.evalExpression("require('fs')", {}), 'runtime', /ReferenceError/);
      await expectFailure(() => engine.evalExpression('process.exit()', {}), 'runtime', /ReferenceError/);
      await expectFailure(() => engine.evalExpression("this.constructor.constructor('return process')()", {}), 'runtime', /ReferenceError/);
      await expectFailure(() => engine.evalExpression('setTimeout(() => 1, 0)', {}), 'runtime', /ReferenceError/);
      await expectFailure(() => engine.evalExpression("fetch('http://127.0.0.1/')", {}), 'runtime', /ReferenceError/);
      await expectFailure(() => engine.evalExpression("import fs from 'fs'", {}), 'syntax', /syntax error/i);
      expect(await engine.evalExpression('globalThis.process', {})).toBeNull();
    });

    it('gives dynamic import nothing to load', async () => {
      // A Promise with no module loader behind it; JSON shows it as an empty object.
      expect(await engine.evalExpression("import('fs')", {})).toEqual({});
      expect(await engine.evalExpression("import('fs') instanceof Promise", {})).toBe(true);
    });

    it('shows Function("return this")() only the sandbox global with $', async () => {
      expect(await engine.evalExpression("Function('return this')()", { a: 1 })).toEqual({ $: { a: 1 } });
      expect(await engine.evalExpression("Object.keys(Function('return this')())", { a: 1 })).toEqual(['$']);
    });

    it('does not leak state between evaluations', async () => {
      expect(await engine.evalExpression('globalThis.x = 1; x', {})).toBe(1);
      expect(await engine.evalExpression('typeof x', {})).toBe('undefined');
      expect(await engine.evalExpression('let y = 1; y', {})).toBe(1);
      expect(await engine.evalExpression('let y = 2; y', {})).toBe(2);
      expect(await engine.evalExpression('Object.prototype.polluted = 1; ({}).polluted', {})).toBe(1);
      expect(await engine.evalExpression('({}).polluted', {})).toBeNull();
      expect(await engine.evalExpression("JSON.stringify = () => 'hijacked'; 5", {})).toBe(5);
      expect(await engine.evalExpression('JSON.stringify({ a: 1 })', {})).toBe('{"a":1}');
    });
  });

  describe('jq', () => {
    it('adds fields', async () => {
      expect(await engine.jq('.a + .b', { a: 1, b: 2 })).toEqual([3]);
    });

    it('maps arrays', async () => {
      expect(await engine.jq('.items | map(.x)', { items: [{ x: 1 }, { x: 2 }] })).toEqual([[1, 2]]);
    });

    it('returns every result of a query with several outputs, and none for empty', async () => {
      expect(await engine.jq('.[]', [1, 'two', { three: 3 }, null])).toEqual([1, 'two', { three: 3 }, null]);
      expect(await engine.jq('empty', {})).toEqual([]);
      expect(await engine.jq('.s', { s: 'line1\nline2 ü' })).toEqual(['line1\nline2 ü']);
    });

    it('builds objects like Conductor JSON_JQ_TRANSFORM examples', async () => {
      expect(await engine.jq('{ key3: (.key1.value1 + .key2.value2) }', { key1: { value1: ['a', 'b'] }, key2: { value2: ['c', 'd'] } })).toEqual([
        { key3: ['a', 'b', 'c', 'd'] },
      ]);
    });

    it('reports an invalid query as a syntax failure', async () => {
      await expectFailure(() => engine.jq('.a |||', {}), 'syntax', /does not compile/);
    });

    it('reports jq runtime errors', async () => {
      // jq's own message alone, as Conductor gives it: no "jq: error (at ...): " before it.
      await expectFailure(() => engine.jq('error("boom")', {}), 'runtime', /^boom$/);
      await expectFailure(() => engine.jq('error({"code": 1})', {}), 'runtime', /^\{"code":1\}$/);
      await expectFailure(() => engine.jq('.a + 1', { a: 'text' }), 'runtime', /^string \("text"\) and number \(1\) cannot be added$/);
    });

    it('cannot read host files', async () => {
      await expectFailure(() => engine.jq('include "/etc/hostname"; .', {}), 'syntax', /module not found/);
      await expectFailure(() => engine.jq('import "/etc/os-release" as $x; $x', {}), 'syntax', /module not found/);
    });
  });
});

describe("$ answers the java.util.List and Map methods of Conductor's GraalJS scripts", () => {
  let engine: ScriptEngine;
  beforeAll(async () => {
    engine = await createScriptEngine();
  });
  afterAll(() => engine.dispose());
  const input = { list: [3, 'x', { k: 1 }], map: { a: 1, b: null, nested: { c: [1] } }, empty: [], none: {} };

  it('lists: get, size, isEmpty, contains, indexOf', async () => {
    const expression =
      '({ g: $.list.get(1), s: $.list.size(), e: $.list.isEmpty(), e2: $.empty.isEmpty(), c: $.list.contains("x"), cObj: $.list.contains({ k: 1 }), no: $.list.contains(4), i: $.list.indexOf(3) })';
    expect(await engine.evalExpression(expression, input)).toEqual({ g: 'x', s: 3, e: false, e2: true, c: true, cObj: true, no: false, i: 0 });
  });

  it('lists: add, addAll, set, remove, clear change the list as Java would', async () => {
    const body =
      'const l = $.list; const added = l.add(4); l.add(0, "first"); const old = l.set(1, 30); const removedAt = l.remove(2); const removedObj = l.remove({ k: 1 }); l.addAll([5, 6]); const copy = l.toArray(); $.empty.add(1); $.empty.clear(); return { l, added, old, removedAt, removedObj, copy, cleared: $.empty.size() };';
    expect(await engine.evalFunctionBody(body, input)).toEqual({
      l: ['first', 30, 4, 5, 6],
      added: true,
      old: 3,
      removedAt: 'x',
      removedObj: true,
      copy: ['first', 30, 4, 5, 6],
      cleared: 0,
    });
  });

  it('an index out of range throws as Java does', async () => {
    await expectFailure(() => engine.evalExpression('$.list.get(3)', input), 'runtime', /Index 3 out of bounds for length 3/);
  });

  it('maps: get, getOrDefault, containsKey, containsValue, keySet, values, size, isEmpty, put, remove', async () => {
    const body =
      'const m = $.map; return { a: m.get("a"), missing: m.get("zz"), dflt: m.getOrDefault("zz", 7), ck: m.containsKey("b"), cv: m.containsValue(1), keys: m.keySet(), n: m.nested.get("c").get(0), size: m.size(), empty: $.none.isEmpty(), put: m.put("a", 2), putNew: m.put("d", 4), removed: m.remove("b"), after: m, entries: m.entrySet().map(e => e.getKey() + "=" + JSON.stringify(e.getValue())) };';
    expect(await engine.evalFunctionBody(body, input)).toEqual({
      a: 1,
      missing: null,
      dflt: 7,
      ck: true,
      cv: true,
      keys: ['a', 'b', 'nested'],
      n: 1,
      size: 3,
      empty: true,
      put: 1,
      putNew: null,
      removed: null,
      after: { a: 2, nested: { c: [1] }, d: 4 },
      entries: ['a=2', 'nested={"c":[1]}', 'd=4'],
    });
  });

  it('plain JavaScript is unchanged: length, map, for-in, JSON.stringify, own keys named like the methods, descriptors and proxies', async () => {
    const body = [
      'const keys = []; for (const k in $.map) keys.push(k);',
      'const arrKeys = []; for (const k in $.list) arrKeys.push(k);',
      'const o = {}; Object.defineProperty(o, "x", { value: 1, enumerable: true });',
      'const p = new Proxy({ y: 2 }, {});',
      'return { size: $.list.size(), len: $.list.length, mapped: $.list.map((v) => typeof v), text: JSON.stringify($), keys, arrKeys, own: $.own.size, o, py: p.y, proto: Object.keys(Object.getPrototypeOf($.map)).length, plain: typeof ({}).get };',
    ].join(' ');
    const given = { ...input, own: { size: 'big' } };
    expect(await engine.evalFunctionBody(body, given)).toEqual({
      size: 3,
      len: 3,
      mapped: ['number', 'string', 'object'],
      text: JSON.stringify(given),
      keys: ['a', 'b', 'nested'],
      arrKeys: ['0', '1', '2'],
      own: 'big',
      o: { x: 1 },
      py: 2,
      proto: 0,
      plain: 'undefined',
    });
  });

  it('are installed only for a script that calls one by name: any other sees plain JSON', async () => {
    expect(await engine.evalExpression('Object.getPrototypeOf($.map) === Object.prototype && typeof $.list.get', input)).toBe('undefined');
    expect(await engine.evalExpression('Object.getPrototypeOf($.map) !== Object.prototype && $.list.size ( )', input)).toBe(3);
  });
});

describe('ScriptEngine time limits', () => {
  let engine: ScriptEngine;
  // Long enough that the ordinary script after each overrun fits it on a busy CI machine: the script
  // workers run at nice 19, so there an evaluation can wait hundreds of milliseconds for a core.
  beforeAll(async () => {
    engine = await createScriptEngine({ timeoutMs: 1500 });
  });
  afterAll(() => engine.dispose());

  it('interrupts an endless loop', async () => {
    await expectFailure(() => engine.evalExpression('while (true) {}', {}), 'timeout', /time limit of 1500 ms/);
    expect(await engine.evalExpression('1 + 1', {})).toBe(2);
  });

  it('stops a loop of long builtin calls that starves the interrupt handler', async () => {
    await expectFailure(() => engine.evalExpression('while (true) { new Array(1e6).fill(1); }', {}), 'timeout', /time limit of 1500 ms/);
    expect(await engine.evalExpression('3 + 3', {})).toBe(6);
  });

  it('interrupts code that loops while its result is converted', async () => {
    await expectFailure(() => engine.evalExpression('({ toJSON() { while (true) {} } })', {}), 'timeout', /time limit of 1500 ms/);
  });

  it('stops a jq query that does not end, then answers the next one', async () => {
    // Constant memory: a query that also allocates could meet the heap limit first on a fast machine.
    await expectFailure(() => engine.jq('reduce range(1e15) as $i (0; . + 1)', {}), 'timeout', /time limit of 1500 ms/);
    await expectFailure(() => engine.jq('def f: f; f', {}), 'timeout', /time limit of 1500 ms/);
    expect(await engine.jq('.a', { a: 1 })).toEqual([1]);
  });
});

describe('ScriptEngine jq memory limit', () => {
  it('refuses a jq query that exceeds its heap and keeps answering', async () => {
    const engine = await createScriptEngine({ timeoutMs: 20_000, jqMemoryLimitBytes: 32 * 1024 * 1024 });
    try {
      await expectFailure(() => engine.jq('[range(1e8)] | length', {}), 'memory', /memory limit/);
      expect(await engine.jq('.a', { a: 2 })).toEqual([2]);
    } finally {
      await engine.dispose();
    }
  });
});

describe('ScriptEngine worker pool', () => {
  it("keeps the caller's event loop turning while scripts spin until their time limit", async () => {
    const engine = await createScriptEngine({ timeoutMs: 2000, workers: 2 });
    try {
      const settled: boolean[] = [];
      const spins = [
        engine.evalExpression('while (true) {}', {}),
        engine.jq('0 | until(false; . + 1)', {}),
        engine.evalExpression('while (true) {}', {}),
        engine.jq('0 | until(false; . + 1)', {}),
      ].map((p, i) => {
        settled[i] = false;
        return p.finally(() => (settled[i] = true));
      });
      // A script run on this thread would hold the loop until its limit and be settled by the time these turns
      // run; in the workers, the loop turns freely while every one of them still spins.
      for (let turn = 0; turn < 100; turn++) await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 0));
      expect(settled).toEqual([false, false, false, false]);
      const outcomes = await Promise.allSettled(spins);
      expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as ScriptError).failure : 'fulfilled'))).toEqual([
        'timeout',
        'timeout',
        'timeout',
        'timeout',
      ]);
      // Workers stopped at the limit were replaced: the pool still answers both languages.
      expect(await engine.evalExpression('$.n * 2', { n: 21 })).toBe(42);
      expect(await engine.jq('.n', { n: 1 })).toEqual([1]);
    } finally {
      await engine.dispose();
    }
  });

  it('runs at most `workers` evaluations at once; the others wait in order', async () => {
    const engine = await createScriptEngine({ workers: 2 });
    try {
      // Each script busy-waits 300 ms by the worker's clock and returns when it began.
      const busy = 'const began = Date.now(); while (Date.now() - began < 300) {} began';
      const began = (await Promise.all([1, 2, 3].map(() => engine.evalExpression(busy, {})))) as number[];
      expect(began[2]!).toBeGreaterThanOrEqual(Math.min(began[0]!, began[1]!) + 300);
    } finally {
      await engine.dispose();
    }
  });

  it('fails an evaluation that waits longer than the queue limit for a worker', async () => {
    const engine = await createScriptEngine({ workers: 1, timeoutMs: 2000, queueTimeoutMs: 100 });
    try {
      const spinning = engine.evalExpression('while (true) {}', {});
      await expectFailure(() => engine.evalExpression('1', {}), 'busy', /all 1 script workers stayed busy for 100 ms/);
      await expectFailure(() => spinning, 'timeout', /time limit of 2000 ms/);
      expect(await engine.evalExpression('1', {})).toBe(1);
    } finally {
      await engine.dispose();
    }
  });

  it('keeps a request waiting while a worker is being replaced, whatever the queue limit', async () => {
    // A worker that exhausts its heap is replaced; the request behind it waits for the replacement's
    // load (which has its own deadline) instead of failing as `busy`, as if the worker were evaluating.
    const engine = await createScriptEngine({ workers: 1, timeoutMs: 5000, queueTimeoutMs: 1 });
    try {
      const bomb = engine.evalExpression('(() => { const a = []; for (;;) a.push(new Array(1e6).fill(1)); })()', {});
      await expectFailure(() => bomb, 'memory', /exceeded the memory limit/);
      expect(await engine.evalExpression('1', {})).toBe(1);
    } finally {
      await engine.dispose();
    }
  });

  it('refuses results larger than the limit inside the worker', async () => {
    const engine = await createScriptEngine({ workers: 1, maxResultBytes: 1024 });
    try {
      await expectFailure(() => engine.evalExpression("'x'.repeat(5000)", {}), 'result', /JavaScript result of 5002 bytes exceeds the limit of 1024 bytes/);
      await expectFailure(() => engine.jq('[range(1000)]', {}), 'result', /jq result of \d+ bytes exceeds the limit of 1024 bytes/);
      expect(await engine.evalExpression("'x'.repeat(10)", {})).toBe('xxxxxxxxxx');
    } finally {
      await engine.dispose();
    }
  });

  it('is stopped by dispose: pending evaluations reject, later ones too', async () => {
    const engine = await createScriptEngine({ workers: 1, timeoutMs: 5000 });
    const pending = expect(engine.evalExpression('while (true) {}', {})).rejects.toThrow(/script workers are stopped/);
    await engine.dispose();
    await pending;
    await expect(engine.evalExpression('1', {})).rejects.toThrow(/script workers are stopped/);
  });
});
