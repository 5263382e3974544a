import { mergeVariables } from '../../../src/engine/commands/update-variables';
import { resolveParams, resolveValue } from '../../../src/engine/expressions';
import { payloadLookup } from '../../../src/services/event-processor';
import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// Keys that come from users (case values, input keys, task references, variable names, `${...}` path
// steps) mean the object's own entries only: `constructor`, `__proto__`, `toString`, `hasOwnProperty` and
// `valueOf` are names like any other, never what Object.prototype holds.

const env = useTestEnv({ scripts: false });
const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('SWITCH and DECISION cases', () => {
  const switchDef = workflowDef({
    tasks: [
      {
        name: 'sw',
        taskReferenceName: 'sw',
        type: 'SWITCH',
        evaluatorType: 'value-param',
        expression: 'kind',
        inputParameters: { kind: '${workflow.input.k}' },
        decisionCases: { a: [simple('ta')] },
        defaultCase: [simple('td')],
      },
    ],
  });
  const decisionDef = workflowDef({
    tasks: [
      {
        name: 'd',
        taskReferenceName: 'd',
        type: 'DECISION',
        caseValueParam: 'kind',
        inputParameters: { kind: '${workflow.input.k}' },
        decisionCases: { a: [simple('ta')] },
        defaultCase: [simple('td')],
      },
    ],
  });

  it.each(INHERITED)('SWITCH on the value %s, which no case names, takes the default case', (k) => {
    const run = new Run(env, switchDef, { input: { k } });
    expect(run.task('sw')).toMatchObject({ status: 'COMPLETED', outputData: { evaluationResult: [k], selectedCase: 'defaultCase' } });
    expect(run.refs()).toEqual(['sw', 'td']);
  });

  it.each(INHERITED)('DECISION on the value %s, which no case names, takes the default case', (k) => {
    const run = new Run(env, decisionDef, { input: { k } });
    expect(run.refs()).toEqual(['d', 'td']);
  });

  it('a case that does name constructor is taken', () => {
    const def = workflowDef({
      tasks: [
        sys(
          'SWITCH',
          'sw',
          { kind: '${workflow.input.k}' },
          { evaluatorType: 'value-param', expression: 'kind', decisionCases: { constructor: [simple('tc')] }, defaultCase: [simple('td')] },
        ),
      ],
    });
    expect(new Run(env, def, { input: { k: 'constructor' } }).refs()).toEqual(['sw', 'tc']);
  });

  it('a value-param naming an inherited property of the input reads nothing', () => {
    const def = workflowDef({
      tasks: [
        sys(
          'SWITCH',
          'sw',
          {},
          { evaluatorType: 'value-param', expression: 'constructor', decisionCases: { null: [simple('tn')] }, defaultCase: [simple('td')] },
        ),
      ],
    });
    expect(new Run(env, def).refs()).toEqual(['sw', 'tn']);
  });
});

describe('${...} expressions', () => {
  const lookup = (input: Record<string, unknown>) => (name: string) => (name === 'workflow' ? { input } : undefined);

  it.each(INHERITED)('${workflow.input.%s} is null when the input has no such key', (k) => {
    expect(resolveValue(`\${workflow.input.${k}}`, lookup({ a: 1 }))).toBeNull();
    expect(resolveValue(`x-\${workflow.input.${k}}`, lookup({ a: 1 }))).toBe('x-null');
    expect(resolveValue(`\${workflow.input.a.${k}}`, lookup({ a: { b: 1 } }))).toBeNull();
  });

  it('an own key of such a name resolves to its value; lengths and indexes still resolve', () => {
    const input = JSON.parse('{"constructor": "c", "__proto__": {"x": 1}, "list": [10, 20]}');
    expect(resolveValue('${workflow.input.constructor}', lookup(input))).toBe('c');
    expect(resolveValue('${workflow.input.__proto__.x}', lookup(input))).toBe(1);
    expect(resolveValue('${workflow.input.list[1]}', lookup(input))).toBe(20);
    expect(resolveValue('${workflow.input.list.length()}', lookup(input))).toBe(2);
  });

  it('a parameter named __proto__ stays an entry of the resolved input, never its prototype', () => {
    const params = JSON.parse('{"__proto__": {"polluted": "${workflow.input.a}"}, "b": 2}');
    const out = resolveParams(params, lookup({ a: 1 }));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['__proto__', 'b']);
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"__proto__": {"polluted": 1}, "b": 2}'));
  });

  it('a task reference named like an inherited property is no task', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'task_a', { v: '${constructor.output}', w: '${toString}' })] }));
    expect(run.task('a').inputData).toEqual({ v: null, w: null });
  });

  it('an event payload lookup reads own keys only', () => {
    expect(resolveValue('${constructor}', payloadLookup({ a: 1 }))).toBeNull();
    expect(resolveValue('${a}', payloadLookup({ a: 1 }))).toBe(1);
  });
});

describe('maps keyed by user data', () => {
  it('a task type named constructor gets no domain from taskToDomain unless it names one', () => {
    const def = workflowDef({ tasks: [simple('a', 'constructor')] });
    expect(new Run(env, def, { taskToDomain: { other: 'd1' } }).task('a').domain).toBeUndefined();
    expect(new Run(env, def, { taskToDomain: { '*': 'd2' } }).task('a').domain).toBe('d2');
  });

  it('an input template fills keys named like inherited properties that the input lacks', () => {
    const run = new Run(env, workflowDef({ inputTemplate: { constructor: 'from-template', toString: 't' }, tasks: [simple('a')] }), { input: { x: 1 } });
    expect(run.wf.input).toEqual({ x: 1, constructor: 'from-template', toString: 't' });
  });

  it('variables updated under such names become entries, and __proto__ never becomes the prototype', () => {
    const update = JSON.parse('{"__proto__": {"polluted": true}, "constructor": [1]}');
    const out = mergeVariables({}, update, true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"__proto__": [{"polluted": true}], "constructor": [1]}'));
  });

  it('a DO_WHILE iteration keeps the output of a body task referenced as __proto__ as an entry', () => {
    const def = workflowDef({
      tasks: [
        {
          name: 'each',
          taskReferenceName: 'each',
          type: 'DO_WHILE',
          items: '${workflow.input.list}',
          loopCondition: 'true',
          loopOver: [simple('__proto__', 'task_p')],
          inputParameters: {},
        },
      ],
    });
    const run = new Run(env, def, { input: { list: ['a'] } });
    run.complete('__proto____1', { polluted: true });
    const iteration = run.task('each').outputData['1'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(iteration)).toBe(Object.prototype);
    expect(Object.keys(iteration)).toEqual(['__proto__']);
    expect(iteration.polluted).toBeUndefined();
  });

  it('a dynamic fork branch referenced as constructor gets its own input, or none', () => {
    const def = workflowDef({
      tasks: [
        sys(
          'FORK_JOIN_DYNAMIC',
          'df',
          { tasks: '${workflow.input.tasks}', inputs: '${workflow.input.inputs}' },
          { dynamicForkTasksParam: 'tasks', dynamicForkTasksInputParamName: 'inputs' },
        ),
        sys('JOIN', 'dj'),
      ],
    });
    const run = new Run(env, def, {
      input: {
        tasks: [
          { name: 'x', taskReferenceName: 'constructor' },
          { name: 'y', taskReferenceName: 'toString' },
        ],
        inputs: { toString: { v: 2 } },
      },
    });
    expect(run.task('constructor').inputData).toEqual({});
    expect(run.task('toString').inputData).toEqual({ v: 2 });
  });
});
