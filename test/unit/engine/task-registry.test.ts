import type { Turn } from '../../../src/engine/state';
import type { WorkflowTask } from '../../../src/model/definitions';
import type { Task } from '../../../src/model/execution';
import {
  childWorkflowOf,
  isBlockingType,
  isBuiltInType,
  isQueuedType,
  isSelfCompletingType,
  isWorkerType,
  registeredDefinitionsNamed,
  TASK_TYPES,
  taskTypeNamed,
  taskTypeNameOf,
  taskTypeOf,
} from '../../../src/engine/tasks/registry';
import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// The task-type registry: what each type is, as the decider and the services (signal, test runs) ask it.

const SYSTEM = [
  'SWITCH',
  'DECISION',
  'FORK_JOIN',
  'FORK_JOIN_DYNAMIC',
  'FORK',
  'JOIN',
  'EXCLUSIVE_JOIN',
  'DO_WHILE',
  'SET_VARIABLE',
  'INLINE',
  'LAMBDA',
  'JSON_JQ_TRANSFORM',
  'NOOP',
  'TERMINATE',
  'EVENT',
  'START_WORKFLOW',
  'SUB_WORKFLOW',
  'WAIT',
  'HUMAN',
  'YIELD',
];

describe('registeredDefinitionsNamed', () => {
  it('names every worker task of the tree without an inline definition, in branches, forks and loops', () => {
    const tasks = [
      { name: 'a', taskReferenceName: 'a', type: 'SIMPLE' },
      { name: 'inline', taskReferenceName: 'inline', type: 'SIMPLE', taskDefinition: { name: 'inline' } },
      { name: 'http', taskReferenceName: 'http', type: 'HTTP' },
      { name: 'dyn', taskReferenceName: 'dyn', type: 'DYNAMIC' },
      {
        name: 'sw',
        taskReferenceName: 'sw',
        type: 'SWITCH',
        decisionCases: { x: [{ name: 'b', taskReferenceName: 'b', type: 'SIMPLE' }] },
        defaultCase: [{ name: 'c', taskReferenceName: 'c', type: 'encode' }],
      },
      { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', forkTasks: [[{ name: 'd', taskReferenceName: 'd', type: 'SIMPLE' }]] },
      { name: 'loop', taskReferenceName: 'loop', type: 'DO_WHILE', loopOver: [{ name: 'e', taskReferenceName: 'e', type: 'SIMPLE' }] },
    ] as unknown as WorkflowTask[];
    expect(registeredDefinitionsNamed(tasks)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('kinds', () => {
  it.each(SYSTEM)('%s is run by the decider: no queue, no worker', (type) => {
    expect(taskTypeNamed(type).kind).toBe('system');
    expect(isWorkerType(type)).toBe(false);
    expect(isQueuedType(type)).toBe(false);
  });

  it('HTTP is polled from a queue by Baton itself, not by a worker', () => {
    expect(isQueuedType('HTTP')).toBe(true);
    expect(isWorkerType('HTTP')).toBe(false);
  });

  it.each(['SIMPLE', 'DYNAMIC', 'USER_DEFINED', 'my_task', 'encode'])('%s is a worker task, taken from a queue', (type) => {
    expect(isWorkerType(type)).toBe(true);
    expect(isQueuedType(type)).toBe(true);
  });

  it('every name is declared by one module only, and an unknown name falls back to SIMPLE', () => {
    const names = TASK_TYPES.flatMap((t) => t.types);
    expect(new Set(names).size).toBe(names.length);
    expect(taskTypeNamed('no_such_type')).toBe(taskTypeNamed('SIMPLE'));
  });
});

describe('flags', () => {
  it("built-in types (Conductor's TaskType.isBuiltIn) are the control-flow ones, never retried", () => {
    expect(SYSTEM.filter(isBuiltInType).sort()).toEqual(['DECISION', 'DO_WHILE', 'EXCLUSIVE_JOIN', 'FORK', 'FORK_JOIN', 'FORK_JOIN_DYNAMIC', 'JOIN', 'SWITCH']);
    expect(isBuiltInType('SIMPLE')).toBe(false);
    expect(isBuiltInType('HTTP')).toBe(false);
  });

  it('an execution blocks (for execute and signal) at WAIT, HUMAN and YIELD', () => {
    expect([...SYSTEM, 'HTTP', 'SIMPLE', 'custom'].filter(isBlockingType).sort()).toEqual(['HUMAN', 'WAIT', 'YIELD']);
  });

  it('the decider finishes every system task by itself except those that wait for the outside (a test run mocks those)', () => {
    expect(SYSTEM.filter((t) => !isSelfCompletingType(t)).sort()).toEqual(['HUMAN', 'SUB_WORKFLOW', 'WAIT', 'YIELD']);
    expect(isSelfCompletingType('HTTP')).toBe(false);
    expect(isSelfCompletingType('SIMPLE')).toBe(false);
  });
});

describe('what callers ask of a type', () => {
  const ALL = [...SYSTEM, 'HTTP', 'SIMPLE', 'DYNAMIC', 'custom'];
  const where = (ask: (name: string) => unknown) => ALL.filter((n) => ask(n)).sort();

  it('a retried attempt waits out its delay before it starts for the types Conductor runs from a queue (WAIT, SUB_WORKFLOW, START_WORKFLOW)', () => {
    expect(where((n) => taskTypeNamed(n).startsAfterRetryDelay)).toEqual(['START_WORKFLOW', 'SUB_WORKFLOW', 'WAIT']);
  });

  it('an open task can be skipped when a worker or the outside ends it; control flow cannot', () => {
    expect(where((n) => taskTypeNamed(n).skippableWhileOpen)).toEqual([
      'DYNAMIC',
      'EVENT',
      'HTTP',
      'HUMAN',
      'SIMPLE',
      'SUB_WORKFLOW',
      'WAIT',
      'YIELD',
      'custom',
    ]);
  });

  it('joins and loops are reopened with the tasks they wait on; only JOIN joins a fork', () => {
    expect(where((n) => taskTypeNamed(n).reopenedWithPredecessors)).toEqual(['DO_WHILE', 'EXCLUSIVE_JOIN', 'JOIN']);
    expect(where((n) => taskTypeNamed(n).joinsFork)).toEqual(['JOIN']);
  });

  it('TERMINATE ends the workflow, START_WORKFLOW ends after its effect, SUB_WORKFLOW follows a child', () => {
    expect(where((n) => taskTypeNamed(n).endsWorkflow)).toEqual(['TERMINATE']);
    expect(where((n) => taskTypeNamed(n).endsAfterEffect)).toEqual(['START_WORKFLOW']);
    expect(where((n) => taskTypeNamed(n).followsChildWorkflow)).toEqual(['SUB_WORKFLOW']);
    expect(childWorkflowOf({ taskType: 'SUB_WORKFLOW', subWorkflowId: 'c1', workflowTask: { type: 'SUB_WORKFLOW' } } as Task)).toBe('c1');
    expect(childWorkflowOf({ taskType: 'SIMPLE', subWorkflowId: 'c1', workflowTask: { type: 'SIMPLE' } } as Task)).toBeUndefined();
  });

  it("a task's type: SIMPLE takes the task's name, a fork is FORK, a user-defined type keeps its own", () => {
    const wt = (type: string) => ({ type, name: 'encode', taskReferenceName: 'r' }) as WorkflowTask;
    expect(taskTypeNameOf(wt('SIMPLE'))).toBe('encode');
    expect(taskTypeNameOf(wt('FORK_JOIN'))).toBe('FORK');
    expect(taskTypeNameOf(wt('FORK_JOIN_DYNAMIC'))).toBe('FORK');
    expect(taskTypeNameOf(wt('USER_DEFINED'))).toBe('USER_DEFINED');
    expect(taskTypeNameOf(wt('HTTP'))).toBe('HTTP');
  });

  it('canceling a SUB_WORKFLOW terminates its child with the reason; other types owe nothing', () => {
    const emitted: unknown[] = [];
    const turn = { log: { emit: (e: unknown) => emitted.push(e) } } as unknown as Turn;
    taskTypeNamed('SUB_WORKFLOW').cancel!(turn, { subWorkflowId: 'c1' } as Task, 'parent ended');
    expect(emitted).toEqual([{ kind: 'terminateWorkflow', workflowId: 'c1', reason: 'parent ended' }]);
    expect(where((n) => taskTypeNamed(n).cancel)).toEqual(['SUB_WORKFLOW']);
  });
});

describe('the module of a task', () => {
  const taskOf = (taskType: string, workflowType: string) => ({ taskType, workflowTask: { type: workflowType } }) as Task;

  it('a FORK task is run by the dynamic fork when its workflow task is FORK_JOIN_DYNAMIC, else by FORK_JOIN', () => {
    expect(taskTypeOf(taskOf('FORK', 'FORK_JOIN_DYNAMIC'))).toBe(taskTypeNamed('FORK_JOIN_DYNAMIC'));
    expect(taskTypeOf(taskOf('FORK', 'FORK_JOIN'))).toBe(taskTypeNamed('FORK_JOIN'));
    expect(taskTypeOf(taskOf('FORK', 'FORK'))).toBe(taskTypeNamed('FORK_JOIN'));
  });

  it('a DYNAMIC workflow task becomes a worker task of the type it names', () => {
    expect(taskTypeOf(taskOf('resolved_name', 'DYNAMIC'))).toBe(taskTypeNamed('SIMPLE'));
  });
});

describe('handlers return their outcome as data', () => {
  const env = useTestEnv({ scripts: false });
  const runOf = (tasks: unknown[]) => new Run(env, workflowDef({ tasks }));

  it('FORK_JOIN ends at once, owns its successors, and names its branches and JOIN to schedule', () => {
    const run = runOf([sys('FORK_JOIN', 'f', {}, { forkTasks: [[simple('a')], [simple('b')]] }), sys('JOIN', 'j')]);
    const fork = { ...run.task('f'), status: 'SCHEDULED' as const };
    const outcome = taskTypeNamed('FORK_JOIN').start!({ state: run.state, env, log: run.log }, fork, false);
    expect(outcome).toEqual({
      end: { output: {} },
      ownsSuccessors: true,
      schedule: [
        expect.objectContaining({ task: expect.objectContaining({ taskReferenceName: 'a' }), suffix: '', iteration: 0 }),
        expect.objectContaining({ task: expect.objectContaining({ taskReferenceName: 'b' }) }),
        expect.objectContaining({ task: expect.objectContaining({ taskReferenceName: 'j' }) }),
      ],
    });
  });

  it('TERMINATE asks for the end of the workflow with its status, reason and output', () => {
    const run = runOf([simple('w'), sys('TERMINATE', 'stop', { terminationStatus: 'FAILED', terminationReason: 'no', workflowOutput: { x: 1 } })]);
    const stop = { ...run.task('w'), taskType: 'TERMINATE', inputData: { terminationStatus: 'FAILED', terminationReason: 'no', workflowOutput: { x: 1 } } };
    expect(taskTypeNamed('TERMINATE').start!({ state: run.state, env, log: run.log }, stop, false)).toEqual({
      end: { output: { x: 1 } },
      ownsSuccessors: true,
      endWorkflow: { status: 'FAILED', reason: 'no', output: { x: 1 }, failed: true },
    });
  });

  it('a JOIN waits, and its re-evaluation is nothing until its branches ended', () => {
    const run = runOf([sys('FORK_JOIN', 'f', {}, { forkTasks: [[simple('a')]] }), sys('JOIN', 'j', {}, { joinOn: ['a'] })]);
    const join = taskTypeNamed('JOIN');
    const turn = { state: run.state, env, log: run.log };
    expect(join.start!(turn, run.task('j'), false)).toEqual({ wait: true });
    expect(join.evaluate!(turn, run.task('j'))).toBeUndefined();
    run.complete('a', { v: 1 });
    expect(run.task('j')).toMatchObject({ status: 'COMPLETED', outputData: { a: { v: 1 } } });
  });

  it('WAIT states its own deadline only while it waits', () => {
    env.now = 1_000_000;
    const run = runOf([sys('WAIT', 'w', { duration: '5 seconds' })]);
    const wait = taskTypeNamed('WAIT');
    expect(wait.deadline!(run.task('w'))).toBe(1_005_000);
    expect(wait.deadline!({ ...run.task('w'), status: 'COMPLETED' })).toBeUndefined();
    expect(taskTypeNamed('HUMAN').deadline).toBeUndefined();
  });
});
