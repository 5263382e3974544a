import pino from 'pino';
import { conditionHolds, EventProcessor, expandInlineJson, payloadLookup } from '../../../src/services/event-processor';
import { resolveValue } from '../../../src/engine/expressions';
import type { EventExecution, EventHandler } from '../../../src/model/events';
import { ActorDeactivated } from '../../../src/runtime/ports';
import { ScriptError } from '../../../src/scripting/script-engine';

// The event processor's rules, with the stores and the workflow service replaced by recorders.

/** Evaluates JavaScript in the test process: a stand-in for the sandbox, for trusted test input only. */
const jsScripts = { evalExpression: async (expr: string, input: unknown) => new Function('$', `return (${expr});`)(input) as unknown };

describe('payload helpers', () => {
  test('`${...}` reads paths from the payload root, and `$` is the payload itself', () => {
    const payload = { a: { b: [1, 2] }, name: 'n' };
    expect(resolveValue({ x: '${a.b[1]}', y: 'hi ${name}', z: '${$.name}', missing: '${nope.x}' }, payloadLookup(payload))).toEqual({
      x: 2,
      y: 'hi n',
      z: 'n',
      missing: null,
    });
  });

  test('expandInlineJson parses JSON objects and arrays held in strings, at any depth', () => {
    expect(expandInlineJson({ a: '{"b":"[1,2]"}', c: 'plain', d: '{not json}', e: [' {"f":1} '], g: 3 })).toEqual({
      a: { b: [1, 2] },
      c: 'plain',
      d: '{not json}',
      e: [{ f: 1 }],
      g: 3,
    });
  });

  test('conditions: none holds; JavaScript with $; value-param reads a path; Conductor truthiness', async () => {
    const payload = { amount: 150, ok: true, flag: 'yes', count: 0 };
    expect(await conditionHolds({}, payload, jsScripts)).toBe(true);
    expect(await conditionHolds({ condition: '  ' }, payload, jsScripts)).toBe(true);
    expect(await conditionHolds({ condition: '$.amount > 100' }, payload, jsScripts)).toBe(true);
    expect(await conditionHolds({ condition: '$.amount > 200', evaluatorType: 'javascript' }, payload, jsScripts)).toBe(false);
    expect(await conditionHolds({ condition: 'ok', evaluatorType: 'value-param' }, payload, jsScripts)).toBe(true);
    // A string is not true by Conductor's rule, a number is when above zero.
    expect(await conditionHolds({ condition: '$.flag' }, payload, jsScripts)).toBe(false);
    expect(await conditionHolds({ condition: '$.count' }, payload, jsScripts)).toBe(false);
    expect(await conditionHolds({ condition: '$.amount' }, payload, jsScripts)).toBe(true);
  });
});

describe('EventProcessor', () => {
  const handler = (name: string, actions: EventHandler['actions'], extra: Partial<EventHandler> = {}): EventHandler => ({
    name,
    event: 'conductor:wf:emit',
    active: true,
    actions,
    ...extra,
  });
  const startAction = (name: string): EventHandler['actions'][number] => ({
    action: 'start_workflow',
    start_workflow: { name, input: { v: '${v}' } },
    expandInlineJSON: false,
  });

  function setup(
    handlers: EventHandler[],
    opts: {
      command?: (id: string, method: string, arg: unknown) => Promise<unknown>;
      start?: () => Promise<string>;
      record?: (e: EventExecution) => Promise<void>;
      scripts?: { evalExpression(expr: string, input: unknown): Promise<unknown> };
    } = {},
  ) {
    const recorded: EventExecution[] = [];
    const started: Array<{ req: any; opts: any }> = [];
    const commands: Array<[string, string, unknown]> = [];
    const command = async (id: string, method: string, arg: unknown): Promise<unknown> => {
      commands.push([id, method, arg]);
      return opts.command ? opts.command(id, method, arg) : 'applied';
    };
    const processor = new EventProcessor({
      metadata: {
        listEventHandlers: async () => handlers,
        addEventExecution: opts.record ?? (async (e: EventExecution) => void recorded.push(e)),
      } as never,
      executions: { getTask: async () => undefined, load: async () => undefined } as never,
      workflows: {
        start: async (req: unknown, o: unknown) => {
          started.push({ req, opts: o });
          return opts.start ? opts.start() : 'wf-new';
        },
        // The service's operations, recorded as the actor call each one makes.
        terminate: (id: string, reason?: string) => command(id, 'terminate', { reason }),
        updateVariables: (id: string, variables: Record<string, unknown>, appendArray: boolean) => command(id, 'updateVariables', { variables, appendArray }),
        updateTask: (result: { workflowInstanceId: string }) => command(result.workflowInstanceId, 'update', result),
      } as never,
      scripts: (opts.scripts ?? jsScripts) as never,
      derivedId: (seed) => `id(${seed})`,
      log: pino({ level: 'silent' }),
      now: () => 1000,
      retryDelaysMs: [1, 1],
    });
    return { processor, recorded, started, commands };
  }

  const event = { id: 'm1', event: 'conductor:wf:emit', payload: { v: 7, target: 'wf-9' } };

  test('start_workflow: a name-based id, the resolved input plus the event keys, the event name on the workflow', async () => {
    const { processor, recorded, started } = setup([handler('h', [startAction('child')])]);
    await processor.handle(event);
    expect(started).toEqual([
      {
        req: {
          name: 'child',
          version: undefined,
          correlationId: undefined,
          input: { v: 7, 'conductor.event.messageId': 'm1', 'conductor.event.name': 'conductor:wf:emit' },
        },
        opts: { workflowId: 'id(event:h:m1:0)', event: 'conductor:wf:emit' },
      },
    ]);
    expect(recorded).toEqual([
      {
        id: 'm1_h_0',
        messageId: 'm1',
        name: 'h',
        event: 'conductor:wf:emit',
        created: 1000,
        status: 'COMPLETED',
        action: 'start_workflow',
        output: { workflowId: 'id(event:h:m1:0)' },
        payload: { v: 7, target: 'wf-9' },
      },
    ]);
  });

  test("the message's payload is kept once per handler, on its first record", async () => {
    const { processor, recorded } = setup([handler('h', [startAction('a'), startAction('b')])]);
    await processor.handle(event);
    expect(recorded.map((r) => [r.id, r.payload])).toEqual([
      ['m1_h_0', event.payload],
      ['m1_h_1', undefined],
    ]);
  });

  test('handlers of other events and inactive handlers are left alone', async () => {
    const { processor, recorded, started } = setup([
      handler('other', [startAction('x')], { event: 'conductor:wf:else' }),
      handler('off', [startAction('x')], { active: false }),
    ]);
    await processor.handle(event);
    expect(started).toEqual([]);
    expect(recorded).toEqual([]);
  });

  test('a failing action is recorded FAILED with its error, and the next action still runs', async () => {
    let calls = 0;
    const { processor, recorded } = setup([handler('h', [startAction('a'), startAction('b')])], {
      start: async () => {
        calls += 1;
        if (calls === 1) throw new Error('No such workflow found by name: a, version: null');
        return 'ok';
      },
    });
    await processor.handle(event);
    expect(recorded.map((e) => [e.id, e.status, e.output.error])).toEqual([
      ['m1_h_0', 'FAILED', 'No such workflow found by name: a, version: null'],
      ['m1_h_1', 'COMPLETED', undefined],
    ]);
  });

  test('a transient failure (actor moved) is retried before it counts', async () => {
    let calls = 0;
    const { processor, recorded, commands } = setup(
      [handler('h', [{ action: 'terminate_workflow', terminate_workflow: { workflowId: '${target}' }, expandInlineJSON: false }])],
      {
        command: async () => {
          calls += 1;
          if (calls < 3) throw new ActorDeactivated('moved');
          return undefined;
        },
      },
    );
    await processor.handle(event);
    expect(commands).toHaveLength(3);
    expect(commands[0]).toEqual(['wf-9', 'terminate', { reason: 'Terminated by event handler h on conductor:wf:emit' }]);
    expect(recorded.map((e) => e.status)).toEqual(['COMPLETED']);
  });

  test('a transient failure that does not pass is recorded FAILED', async () => {
    const { processor, recorded, commands } = setup(
      [
        handler('h', [
          { action: 'update_workflow_variables', update_workflow_variables: { workflowId: '${target}', variables: { a: 1 } }, expandInlineJSON: false },
        ]),
      ],
      {
        command: async () => {
          throw new ActorDeactivated('moved');
        },
      },
    );
    await processor.handle(event);
    expect(commands).toHaveLength(3);
    expect(recorded).toMatchObject([{ status: 'FAILED', action: 'update_workflow_variables', output: { error: 'moved' } }]);
  });

  test('a condition that cannot be evaluated is a FAILED execution; a false one is SKIPPED', async () => {
    const broken = {
      evalExpression: async () => {
        throw new ScriptError('syntax', 'SyntaxError: unexpected token');
      },
    };
    const { processor, recorded, started } = setup([handler('h', [startAction('x')], { condition: '$.v >' })], { scripts: broken });
    await processor.handle(event);
    expect(started).toEqual([]);
    expect(recorded).toMatchObject([
      { id: 'm1_h_0', status: 'FAILED', output: { error: 'condition failed: SyntaxError: unexpected token', condition: '$.v >' } },
    ]);

    const skip = setup([handler('h', [startAction('x')], { condition: '$.v > 100' })]);
    await skip.processor.handle(event);
    expect(skip.started).toEqual([]);
    expect(skip.recorded).toEqual([
      {
        id: 'm1_h_0',
        messageId: 'm1',
        name: 'h',
        event: 'conductor:wf:emit',
        created: 1000,
        status: 'SKIPPED',
        output: { msg: event.payload, condition: '$.v > 100' },
        payload: event.payload,
      },
    ]);
  });

  test('complete_task names its task by id or by workflow and reference; an unknown one fails the action', async () => {
    const { processor, recorded } = setup([
      handler('h', [{ action: 'complete_task', complete_task: { workflowId: '${target}', taskRefName: 'gate' }, expandInlineJSON: false }]),
    ]);
    await processor.handle(event);
    expect(recorded).toMatchObject([{ status: 'FAILED', output: { error: 'No such workflow found by id: wf-9' } }]);
  });

  test('two handlers of one event keep separate records', async () => {
    const { processor, recorded } = setup([handler('a', [startAction('x')]), handler('b', [startAction('y')])]);
    await processor.handle(event);
    expect(recorded.map((e) => e.id)).toEqual(['m1_a_0', 'm1_b_0']);
  });

  test('handlers that cannot be read reject the event, so a redelivering bus tries again', async () => {
    const processor = new EventProcessor({
      metadata: {
        listEventHandlers: async () => {
          throw new Error('store down');
        },
      } as never,
      executions: {} as never,
      workflows: {} as never,
      scripts: jsScripts as never,
      derivedId: (s) => s,
      log: pino({ level: 'silent' }),
    });
    await expect(processor.handle(event)).rejects.toThrow('store down');
  });

  test('a record that cannot be written is logged, not thrown', async () => {
    const { processor, started } = setup([handler('h', [startAction('x')])], {
      record: async () => {
        throw new Error('disk full');
      },
    });
    await expect(processor.handle(event)).resolves.toBeUndefined();
    expect(started).toHaveLength(1);
  });
});
