import { EngineError } from '../../../src/engine/errors';
import { TurnLog, type Turn } from '../../../src/engine/state';
import { mergeVariables, updateVariables } from '../../../src/engine/commands/update-variables';

// The engine side of the `update_workflow_variables` event action.

describe('mergeVariables', () => {
  test('replaces and adds keys, keeping the others', () => {
    expect(mergeVariables({ a: 1, b: [1] }, { b: 2, c: 'x' }, false)).toEqual({ a: 1, b: 2, c: 'x' });
  });

  test('appendArray appends to arrays, element by element for an array value', () => {
    expect(mergeVariables({ list: [1] }, { list: 2 }, true)).toEqual({ list: [1, 2] });
    expect(mergeVariables({ list: [1] }, { list: [2, 3] }, true)).toEqual({ list: [1, 2, 3] });
  });

  test('appendArray starts an array for a missing key and replaces a scalar', () => {
    expect(mergeVariables({ n: 5 }, { fresh: 'a', fresh2: ['b'], n: 6 }, true)).toEqual({ n: 6, fresh: ['a'], fresh2: ['b'] });
  });

  test('does not change its input', () => {
    const current = { list: [1] };
    mergeVariables(current, { list: 2 }, true);
    expect(current).toEqual({ list: [1] });
  });
});

describe('updateVariables', () => {
  const turnOf = (status: string): Turn => ({
    state: { workflow: { workflowId: 'w1', status, variables: { a: 1 } } as never, tasks: [] },
    env: {} as never,
    log: new TurnLog(),
  });

  test('changes a running execution and marks its row changed', () => {
    const turn = turnOf('RUNNING');
    expect(updateVariables(turn, { b: 2 }, false)).toEqual({ a: 1, b: 2 });
    expect(turn.state.workflow.variables).toEqual({ a: 1, b: 2 });
    expect(turn.log.workflowChanged).toBe(true);
  });

  test('a paused execution can change too', () => {
    expect(updateVariables(turnOf('PAUSED'), { a: 3 }, false)).toEqual({ a: 3 });
  });

  test('an ended execution is a conflict and stays as it was', () => {
    const turn = turnOf('COMPLETED');
    expect(() => updateVariables(turn, { b: 2 }, false)).toThrow(EngineError);
    expect(turn.state.workflow.variables).toEqual({ a: 1 });
    expect(turn.log.workflowChanged).toBe(false);
  });
});
