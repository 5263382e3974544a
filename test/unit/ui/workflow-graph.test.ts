import { END_ID, START_ID, definitionRef, workflowGraph } from '../../../ui/src/graph/workflow-graph';
import { layoutGraph } from '../../../ui/src/graph/layout';

// The console's graph of a definition and of what an execution did (pure, no browser).

const set = (ref: string) => ({ name: ref, taskReferenceName: ref, type: 'SET_VARIABLE', inputParameters: {} });
let seq = 0;
const task = (ref: string, status: string, extra: Record<string, unknown> = {}): any => ({
  taskId: `t-${ref}-${++seq}`,
  referenceTaskName: ref,
  status,
  seq,
  iteration: 0,
  inputData: {},
  outputData: {},
  workflowTask: { name: ref, taskReferenceName: ref, type: 'SIMPLE', inputParameters: {} },
  ...extra,
});

const DEF: any[] = [
  { name: 'fork', taskReferenceName: 'fork', type: 'FORK_JOIN', forkTasks: [[set('l')], [set('r')]] },
  { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['l', 'r'] },
  { name: 'sw', taskReferenceName: 'sw', type: 'SWITCH', decisionCases: { a: [set('ca')], b: [] }, defaultCase: [set('cd')] },
  { name: 'loop', taskReferenceName: 'loop', type: 'DO_WHILE', loopOver: [set('body')] },
  { name: 'dyn', taskReferenceName: 'dyn', type: 'FORK_JOIN_DYNAMIC' },
  { name: 'dj', taskReferenceName: 'dj', type: 'JOIN' },
  { name: 'sub', taskReferenceName: 'sub', type: 'SUB_WORKFLOW' },
];

const edge = (g: ReturnType<typeof workflowGraph>, s: string, t: string) => g.edges.filter((e) => e.source === s && e.target === t);

describe('workflowGraph', () => {
  it('draws a definition: forks fan out and meet, switch cases are labelled (an empty one goes straight on), a loop returns to its start', () => {
    const g = workflowGraph(DEF);
    expect(g.nodes.map((n) => n.id)).toEqual([
      START_ID,
      'fork',
      'l',
      'r',
      'join',
      'sw',
      'ca',
      'cd',
      'loop',
      'loop#loop-end',
      'body',
      'dyn',
      'dj',
      'sub',
      END_ID,
    ]);
    expect(edge(g, 'fork', 'l')).toHaveLength(1);
    expect(edge(g, 'l', 'join')).toHaveLength(1);
    expect(edge(g, 'r', 'join')).toHaveLength(1);
    expect(edge(g, 'sw', 'ca')[0]!.label).toBe('a');
    expect(edge(g, 'sw', 'cd')[0]!.label).toBe('default');
    expect(edge(g, 'sw', 'loop')[0]!.label).toBe('b');
    expect(edge(g, 'ca', 'loop')).toHaveLength(1);
    expect(edge(g, 'loop#loop-end', 'loop')[0]!.back).toBe(true);
    expect(edge(g, 'dyn', 'dj')).toHaveLength(1);
    expect(g.nodes.every((n) => n.status === undefined)).toBe(true);
    expect(g.edges.every((e) => !e.taken)).toBe(true);
  });

  it('colours nodes by their latest task, counts loop iterations and retries, expands a dynamic fork and marks the path taken', () => {
    const tasks = [
      task('fork', 'COMPLETED'),
      task('l', 'COMPLETED'),
      task('r', 'FAILED'),
      task('r', 'COMPLETED'),
      task('join', 'COMPLETED'),
      task('sw', 'COMPLETED', { outputData: { evaluationResult: ['b'] }, workflowTask: DEF[2] }),
      task('loop', 'COMPLETED', { iteration: 2 }),
      task('body__1', 'COMPLETED', { iteration: 1 }),
      task('body__2', 'COMPLETED', { iteration: 2 }),
      task('dyn', 'COMPLETED', { inputData: { forkedTasks: ['d1', 'd2'], forkedTaskDefs: [set('d1'), set('d2')] } }),
      task('d1', 'COMPLETED'),
      task('d2', 'IN_PROGRESS'),
      task('dj', 'IN_PROGRESS'),
    ];
    const g = workflowGraph(DEF, { status: 'RUNNING', tasks });
    const n = (id: string) => g.nodes.find((x) => x.id === id)!;
    expect(n('r')).toMatchObject({ status: 'COMPLETED', attempts: 2 });
    expect(n('loop')).toMatchObject({ status: 'COMPLETED', iterations: 2 });
    expect(n('body')).toMatchObject({ status: 'COMPLETED', attempts: 2 });
    expect(n('ca').status).toBeUndefined();
    expect(n('d1')).toMatchObject({ status: 'COMPLETED', dynamic: true });
    expect(n('d2').status).toBe('IN_PROGRESS');
    expect(edge(g, 'd2', 'dj')).toHaveLength(1);
    expect(n('sub').status).toBeUndefined();
    expect(n(END_ID).status).toBeUndefined();
    // The chosen case 'b' (empty) is taken, the others are not.
    expect(edge(g, 'sw', 'loop')[0]!.taken).toBe(true);
    expect(edge(g, 'sw', 'ca')[0]!.taken).toBe(false);
    expect(edge(g, 'sw', 'cd')[0]!.taken).toBe(false);
    expect(edge(g, 'loop#loop-end', 'loop')[0]!.taken).toBe(true);
    expect(edge(g, 'dj', 'sub')[0]!.taken).toBe(false);
  });

  it('reads the definition reference of loop iterations', () => {
    expect(definitionRef({ referenceTaskName: 'a__3', iteration: 3 })).toBe('a');
    expect(definitionRef({ referenceTaskName: 'a__b', iteration: 0 })).toBe('a__b');
  });

  it('lays out every node, top to bottom', () => {
    const g = workflowGraph(DEF);
    const pos = layoutGraph(g);
    expect(pos.size).toBe(g.nodes.length);
    expect(pos.get(END_ID)!.y).toBeGreaterThan(pos.get('sub')!.y);
    expect(pos.get('sub')!.y).toBeGreaterThan(pos.get(START_ID)!.y);
  });
});
