import { createScriptEngine, ScriptError } from '../../../src/scripting/script-engine';
import type { ScriptEngine, ScriptFailure } from '../../../src/scripting/script-engine';

/** Runs `run` expecting a ScriptError; returns it so a test can look at its failure and message. */
function scriptErrorOf(run: () => unknown): ScriptError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScriptError) return error;
    throw new Error(`expected a ScriptError, got ${String(error)}`);
  }
  throw new Error('expected a ScriptError, but the evaluation succeeded');
}

function expectFailure(run: () => unknown, failure: ScriptFailure, message: RegExp): void {
  const error = scriptErrorOf(run);
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
    it('computes arithmetic and object results from $', () => {
      expect(engine.evalExpression('$.a + $.b', { a: 1, b: 2 })).toBe(3);
      expect(engine.evalExpression('({ sum: $.a + $.b, list: [$.a, "x"], nested: { ok: true } })', { a: 1, b: 2 })).toEqual({
        sum: 3,
        list: [1, 'x'],
        nested: { ok: true },
      });
    });

    it("evaluates a DO_WHILE condition like $.loop['iteration'] < 3", () => {
      const condition = "$.loop['iteration'] < 3";
      expect(engine.evalExpression(condition, { loop: { iteration: 2, '1': { l1: {} } } })).toBe(true);
      expect(engine.evalExpression(condition, { loop: { iteration: 3 } })).toBe(false);
    });

    it('supports the IIFE and named-function script forms used in Conductor definitions', () => {
      expect(engine.evalExpression('(function(){ return $.x * 2; })()', { x: 21 })).toBe(42);
      expect(engine.evalExpression('function e() { if ($.x > 1) { return "big"; } return "small"; } e();', { x: 5 })).toBe('big');
      expect(engine.evalExpression('[1, 2, 3].map(v => v * $.x)', { x: 2 })).toEqual([2, 4, 6]);
    });

    it('evaluates a LAMBDA function body with return, even ending in a line comment', () => {
      const body = 'if ($.input.a == 1) { return { testvalue: true }; } else { return { testvalue: false }; } // done';
      expect(engine.evalFunctionBody(body, { input: { a: 1 } })).toEqual({ testvalue: true });
      expect(engine.evalFunctionBody(body, { input: { a: 2 } })).toEqual({ testvalue: false });
      expect(engine.evalFunctionBody('const n = $.n;', { n: 1 })).toBeNull();
    });

    it('returns SWITCH-style case strings', () => {
      const expression = "$.inputValue == 1 ? 'one' : ($.inputValue == 2 ? 'two' : 'other')";
      expect(engine.evalExpression(expression, { inputValue: 1 })).toBe('one');
      expect(engine.evalExpression(expression, { inputValue: 7 })).toBe('other');
    });

    it('converts results through JSON: undefined, functions and symbols become null, dates ISO strings', () => {
      expect(engine.evalExpression('undefined', {})).toBeNull();
      expect(engine.evalExpression('(function () {})', {})).toBeNull();
      expect(engine.evalExpression("Symbol('s')", {})).toBeNull();
      expect(engine.evalExpression('new Date(0)', {})).toBe('1970-01-01T00:00:00.000Z');
      expect(engine.evalExpression('({ f: function () {}, u: undefined, n: NaN, k: 1 })', {})).toEqual({ n: null, k: 1 });
    });

    it('binds $ as a plain JSON object and a copy of the input', () => {
      const input = { nested: { x: 1 }, list: [1, 2] };
      expect(
        engine.evalExpression(
          'Object.getPrototypeOf($) === Object.prototype && Array.isArray($.list) && typeof $.nested.x === "number"',
          input,
        ),
      ).toBe(true);
      expect(engine.evalExpression('$.nested.x = 99; $.list.push(3); $', input)).toEqual({ nested: { x: 99 }, list: [1, 2, 3] });
      expect(input).toEqual({ nested: { x: 1 }, list: [1, 2] });
      expect(engine.evalExpression('$', undefined)).toBeNull();
    });
  });

  describe('JavaScript errors', () => {
    it('reports a syntax error', () => {
      expectFailure(() => engine.evalExpression('1 +', {}), 'syntax', /syntax error/i);
      expectFailure(() => engine.evalFunctionBody('return (', {}), 'syntax', /syntax error/i);
    });

    it('reports errors thrown at run time, including SyntaxErrors raised while running', () => {
      expectFailure(() => engine.evalExpression("throw new Error('boom')", {}), 'runtime', /Error: boom/);
      expectFailure(() => engine.evalExpression("throw 'plain'", {}), 'runtime', /plain/);
      expectFailure(() => engine.evalExpression("JSON.parse('{')", {}), 'runtime', /SyntaxError/);
      expectFailure(() => engine.evalExpression('$.missing.deeper', {}), 'runtime', /TypeError/);
    });

    it('reports results that JSON cannot carry', () => {
      expectFailure(() => engine.evalExpression('10n', {}), 'result', /BigInt/);
    });

    it('refuses a memory bomb and keeps working afterwards', () => {
      expectFailure(
        () => engine.evalExpression('let a = []; while (true) a.push(new Array(1e6).fill(1))', {}),
        'memory',
        /memory limit/,
      );
      expectFailure(() => engine.evalExpression("'x'.repeat(1e8).length", {}), 'memory', /memory limit/);
      expect(engine.evalExpression('1 + 1', {})).toBe(2);
    });

    it('stops runaway recursion at the stack limit and keeps working afterwards', () => {
      expectFailure(() => engine.evalExpression('function f() { return f() + 1; } f()', {}), 'stack', /stack limit/);
      expect(engine.evalExpression('2 + 2', {})).toBe(4);
    });
  });

  describe('JavaScript sandbox', () => {
    it('has no require, process, timers, fetch, console or WebAssembly', () => {
      const names = ['require', 'process', 'module', 'setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'fetch', 'XMLHttpRequest', 'console', 'WebAssembly', 'std', 'os', 'Buffer'];
      const types = engine.evalExpression(`[${names.map((n) => `typeof ${n}`).join(', ')}]`, {});
      expect(types).toEqual(names.map(() => 'undefined'));
    });

    it('refuses escape attempts', () => {
      expectFailure(() => engine.evalExpression("require('fs')", {}), 'runtime', /ReferenceError/);
      expectFailure(() => engine.evalExpression('process.exit()', {}), 'runtime', /ReferenceError/);
      expectFailure(() => engine.evalExpression("this.constructor.constructor('return process')()", {}), 'runtime', /ReferenceError/);
      expectFailure(() => engine.evalExpression('setTimeout(() => 1, 0)', {}), 'runtime', /ReferenceError/);
      expectFailure(() => engine.evalExpression("fetch('http://127.0.0.1/')", {}), 'runtime', /ReferenceError/);
      expectFailure(() => engine.evalExpression("import fs from 'fs'", {}), 'syntax', /syntax error/i);
      expect(engine.evalExpression('globalThis.process', {})).toBeNull();
    });

    it('gives dynamic import nothing to load', () => {
      // A Promise with no module loader behind it; JSON shows it as an empty object.
      expect(engine.evalExpression("import('fs')", {})).toEqual({});
      expect(engine.evalExpression("import('fs') instanceof Promise", {})).toBe(true);
    });

    it('shows Function("return this")() only the sandbox global with $', () => {
      expect(engine.evalExpression("Function('return this')()", { a: 1 })).toEqual({ $: { a: 1 } });
      expect(engine.evalExpression("Object.keys(Function('return this')())", { a: 1 })).toEqual(['$']);
    });

    it('does not leak state between evaluations', () => {
      expect(engine.evalExpression('globalThis.x = 1; x', {})).toBe(1);
      expect(engine.evalExpression('typeof x', {})).toBe('undefined');
      expect(engine.evalExpression('let y = 1; y', {})).toBe(1);
      expect(engine.evalExpression('let y = 2; y', {})).toBe(2);
      expect(engine.evalExpression('Object.prototype.polluted = 1; ({}).polluted', {})).toBe(1);
      expect(engine.evalExpression('({}).polluted', {})).toBeNull();
      expect(engine.evalExpression("JSON.stringify = () => 'hijacked'; 5", {})).toBe(5);
      expect(engine.evalExpression('JSON.stringify({ a: 1 })', {})).toBe('{"a":1}');
    });
  });

  describe('jq', () => {
    it('adds fields', () => {
      expect(engine.jq('.a + .b', { a: 1, b: 2 })).toEqual([3]);
    });

    it('maps arrays', () => {
      expect(engine.jq('.items | map(.x)', { items: [{ x: 1 }, { x: 2 }] })).toEqual([[1, 2]]);
    });

    it('returns every result of a query with several outputs, and none for empty', () => {
      expect(engine.jq('.[]', [1, 'two', { three: 3 }, null])).toEqual([1, 'two', { three: 3 }, null]);
      expect(engine.jq('empty', {})).toEqual([]);
      expect(engine.jq('.s', { s: 'line1\nline2 ü' })).toEqual(['line1\nline2 ü']);
    });

    it('builds objects like Conductor JSON_JQ_TRANSFORM examples', () => {
      expect(engine.jq('{ key3: (.key1.value1 + .key2.value2) }', { key1: { value1: ['a', 'b'] }, key2: { value2: ['c', 'd'] } })).toEqual([
        { key3: ['a', 'b', 'c', 'd'] },
      ]);
    });

    it('reports an invalid query as a syntax failure', () => {
      expectFailure(() => engine.jq('.a |||', {}), 'syntax', /does not compile/);
    });

    it('reports jq runtime errors', () => {
      expectFailure(() => engine.jq('error("boom")', {}), 'runtime', /boom/);
      expectFailure(() => engine.jq('.a + 1', { a: 'text' }), 'runtime', /cannot be added/);
    });

    it('cannot read host files', () => {
      expectFailure(() => engine.jq('include "/etc/hostname"; .', {}), 'syntax', /module not found/);
      expectFailure(() => engine.jq('import "/etc/os-release" as $x; $x', {}), 'syntax', /module not found/);
    });
  });
});

describe('ScriptEngine time limits', () => {
  let engine: ScriptEngine;
  beforeAll(async () => {
    engine = await createScriptEngine({ timeoutMs: 500 });
  });
  afterAll(() => engine.dispose());

  it('interrupts an endless loop', () => {
    expectFailure(() => engine.evalExpression('while (true) {}', {}), 'timeout', /time limit of 500 ms/);
    expect(engine.evalExpression('1 + 1', {})).toBe(2);
  });

  it('stops a loop of long builtin calls that starves the interrupt handler', () => {
    expectFailure(() => engine.evalExpression('while (true) { new Array(1e6).fill(1); }', {}), 'timeout', /time limit of 500 ms/);
    expect(engine.evalExpression('3 + 3', {})).toBe(6);
  });

  it('interrupts code that loops while its result is converted', () => {
    expectFailure(() => engine.evalExpression('({ toJSON() { while (true) {} } })', {}), 'timeout', /time limit of 500 ms/);
  });

  it('stops a jq query that does not end, then answers the next one', () => {
    expectFailure(() => engine.jq('[range(1e9)] | length', {}), 'timeout', /time limit of 500 ms/);
    expectFailure(() => engine.jq('def f: f; f', {}), 'timeout', /time limit of 500 ms/);
    expect(engine.jq('.a', { a: 1 })).toEqual([1]);
  });
});

describe('ScriptEngine jq memory limit', () => {
  it('refuses a jq query that exceeds its heap and keeps answering', async () => {
    const engine = await createScriptEngine({ timeoutMs: 20_000, jqMemoryLimitBytes: 32 * 1024 * 1024 });
    try {
      expectFailure(() => engine.jq('[range(1e8)] | length', {}), 'memory', /memory limit/);
      expect(engine.jq('.a', { a: 2 })).toEqual([2]);
    } finally {
      engine.dispose();
    }
  });
});
