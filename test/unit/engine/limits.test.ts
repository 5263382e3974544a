import { childChanged } from '../../../src/engine/commands/child-changed';
import { claimTask } from '../../../src/engine/commands/claim';
import { applyTaskResult } from '../../../src/engine/commands/task-result';
import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// Limits the decider enforces on what one execution may grow to: sub-workflow depth, dynamic fork
// width, tasks per execution, payloads a system task produces; and joins that stay linear in their width.

const env = useTestEnv({ scripts: false });

const dynamicFork = (extraTasks: Array<Record<string, unknown>> = []) =>
  workflowDef({
    tasks: [sys('FORK_JOIN_DYNAMIC', 'df', { forkTaskName: 'task_x', forkTaskInputs: '${workflow.input.list}' }), sys('JOIN', 'dj'), ...extraTasks],
  });
const list = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

/** Claims and completes a task by id, as a worker's poll and update would. */
function workerCompletes(run: Run, taskId: string, outputData: Record<string, unknown> = {}): 'applied' | 'ignored' {
  run.turn((t) => claimTask(t, taskId, 'w'));
  return run.turn((t) => applyTaskResult(t, { workflowInstanceId: run.wf.workflowId, taskId, status: 'COMPLETED', outputData }));
}

describe('sub-workflow depth (BATON_MAX_SUBWORKFLOW_DEPTH)', () => {
  const selfStarting = workflowDef({ name: 'again', tasks: [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: 'again', version: 1 } })] });

  it('a child records its depth, and its own SUB_WORKFLOW passes depth + 1 to the grandchild', () => {
    const run = new Run(env, selfStarting, {}, { parent: { workflowId: 'p', taskId: 'pt', depth: 4 } });
    expect(run.wf.subWorkflowDepth).toBe(4);
    expect(run.effects('startWorkflow')).toEqual([expect.objectContaining({ parent: { workflowId: 'wf-1', taskId: run.task('sub').taskId, depth: 5 } })]);
  });

  it('a top-level execution has no depth; a parent link written without one counts as depth 1', () => {
    expect(new Run(env, selfStarting).wf.subWorkflowDepth).toBeUndefined();
    expect(new Run(env, selfStarting, {}, { parent: { workflowId: 'p', taskId: 'pt' } }).wf.subWorkflowDepth).toBe(1);
  });

  it('at the cap the SUB_WORKFLOW task fails with the reason and starts nothing; the execution fails', () => {
    env.maxSubWorkflowDepth = 3;
    const ok = new Run(env, selfStarting, {}, { parent: { workflowId: 'p', taskId: 'pt', depth: 2 } });
    expect(ok.task('sub').status).toBe('IN_PROGRESS');
    const run = new Run(env, selfStarting, {}, { parent: { workflowId: 'p', taskId: 'pt', depth: 3 } });
    expect(run.effects('startWorkflow')).toEqual([]);
    const reason = 'Sub workflow again not started: it would be nested 4 levels deep, over the limit of 3 (BATON_MAX_SUBWORKFLOW_DEPTH)';
    expect(run.task('sub')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', reasonForIncompletion: reason });
    expect(run.wf.status).toBe('FAILED');
    expect(run.wf.reasonForIncompletion).toContain(reason);
    expect(run.effects('notifyParent')).toHaveLength(1); // the parent's SUB_WORKFLOW task fails in turn
  });
});

describe('dynamic fork width (BATON_MAX_FORK_WIDTH) and tasks per execution (BATON_MAX_TASKS_PER_EXECUTION)', () => {
  it('a fork wider than the cap fails with the reason and schedules nothing', () => {
    env.maxForkWidth = 10;
    const run = new Run(env, dynamicFork(), { input: { list: list(11) } });
    expect(run.summary()).toEqual(['df:FORK:FAILED_WITH_TERMINAL_ERROR']);
    expect(run.task('df').reasonForIncompletion).toBe('Dynamic fork df has 11 branches, over the limit of 10 (BATON_MAX_FORK_WIDTH)');
    expect(run.effects('enqueue')).toEqual([]);
    expect(run.wf.status).toBe('FAILED');
  });

  it('a fork at the cap runs', () => {
    env.maxForkWidth = 10;
    const run = new Run(env, dynamicFork(), { input: { list: list(10) } });
    expect(run.effects('enqueue')).toHaveLength(10);
  });

  it('a fork that would take the execution past its task cap fails with the reason', () => {
    env.maxTasksPerExecution = 10;
    const run = new Run(env, dynamicFork(), { input: { list: list(9) } });
    expect(run.task('df')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: 'Dynamic fork df would bring workflow wf-1 to 11 tasks, over the limit of 10 tasks per execution (BATON_MAX_TASKS_PER_EXECUTION)',
    });
    expect(run.tasks).toHaveLength(1);
  });

  it('scheduling past the task cap fails the workflow, naming the task not scheduled', () => {
    env.maxTasksPerExecution = 3;
    const run = new Run(env, workflowDef({ tasks: [simple('a'), simple('b'), simple('c'), simple('d')] }));
    run.complete('a');
    run.complete('b');
    run.complete('c');
    expect(run.summary()).toEqual(['a:task_a:COMPLETED', 'b:task_b:COMPLETED', 'c:task_c:COMPLETED', 'd:task_d:FAILED_WITH_TERMINAL_ERROR']);
    expect(run.task('d').reasonForIncompletion).toBe(
      'Workflow wf-1 holds 3 tasks, the limit of 3 tasks per execution (BATON_MAX_TASKS_PER_EXECUTION); task d was not scheduled',
    );
    expect(run.wf.status).toBe('FAILED');
  });

  it('a retry past the task cap is not scheduled: the task fails for good, saying why', () => {
    env.maxTasksPerExecution = 2;
    env.register({ name: 'task_a', retryCount: 5, retryDelaySeconds: 0 });
    const run = new Run(env, workflowDef({ tasks: [simple('a')] }));
    run.fail('a'); // retried: 2 tasks
    run.fail('a');
    expect(run.tasks).toHaveLength(2);
    expect(run.wf.status).toBe('FAILED');
    expect(run.tasks[1]!.reasonForIncompletion).toBe(
      'boom; not retried: Workflow wf-1 holds 2 tasks, the limit of 2 tasks per execution (BATON_MAX_TASKS_PER_EXECUTION); task a was not scheduled',
    );
  });
});

/**
 * Counts the engine's reads of the execution's task list by index from here on: the work a turn does over its
 * tasks, counted rather than timed. A turn that rescans the list per branch reads width x tasks entries.
 */
function countTaskReads(run: Run): { reads: number; intact: () => boolean } {
  const counter = { reads: 0, intact: () => run.state.tasks === proxy };
  const proxy = new Proxy(run.state.tasks, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) counter.reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  run.state.tasks = proxy;
  return counter;
}

/** Reads of the task list while the last `tail` branches of a `width`-branch dynamic fork complete. */
function forkTailReads(width: number, tail = 50): number {
  env.maxForkWidth = width;
  const run = new Run(env, dynamicFork([simple('after')]), { input: { list: list(width) } });
  const branches = run.tasks.filter((t) => t.taskType === 'task_x').map((t) => t.taskId);
  for (const id of branches.slice(0, width - tail)) workerCompletes(run, id, { ok: true });
  const counter = countTaskReads(run);
  for (const id of branches.slice(width - tail)) workerCompletes(run, id, { ok: true });
  expect(counter.intact()).toBe(true);
  expect(run.task('dj').status).toBe('COMPLETED');
  return counter.reads;
}

/** Reads of the task list while the last `tail` iterations of an `iterations`-long DO_WHILE over items complete. */
function loopTailReads(iterations: number, tail = 50): number {
  env.doWhileMaxIterations = iterations;
  const loop = sys(
    'DO_WHILE',
    'loop',
    { items: '${workflow.input.items}' },
    { items: '${workflow.input.items}', loopCondition: 'unused', loopOver: [simple('body')] },
  );
  const run = new Run(env, workflowDef({ tasks: [loop] }), { input: { items: list(iterations) } });
  for (let i = 1; i <= iterations - tail; i++) run.complete(`body__${i}`, { i });
  const counter = countTaskReads(run);
  for (let i = iterations - tail + 1; i <= iterations; i++) run.complete(`body__${i}`, { i });
  expect(counter.intact()).toBe(true);
  expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { iteration: iterations } });
  return counter.reads;
}

describe('joins, dynamic forks and loops stay linear in their width', () => {
  // Counted, not timed (how long they take is the bench's): doubling the width at most doubles a turn's reads of
  // the task list. Before the lookups were kept per list, every join evaluation rescanned every task per branch
  // it waits on, and doubling the width quadrupled the reads.
  it('a dynamic fork: the last 50 completions read the task list no more than linearly in the width', () => {
    const [narrow, wide] = [forkTailReads(500), forkTailReads(1000)];
    expect(wide).toBeLessThanOrEqual(2.5 * narrow);
  });

  it('a DO_WHILE over items: the last 50 iterations read the task list no more than linearly in the history', () => {
    const [short, long] = [loopTailReads(250), loopTailReads(500)];
    expect(long).toBeLessThanOrEqual(2.5 * short);
  });

  it('a 2,000-branch dynamic fork whose branches workers complete one by one completes its join', () => {
    env.maxForkWidth = 2000;
    const run = new Run(env, dynamicFork([simple('after')]), { input: { list: list(2000) } });
    const branches = run.tasks.filter((t) => t.taskType === 'task_x').map((t) => t.taskId);
    expect(branches).toHaveLength(2000);
    for (const id of branches) workerCompletes(run, id, { ok: true });
    expect(run.task('dj').status).toBe('COMPLETED');
    expect(Object.keys(run.task('dj').outputData)).toHaveLength(2000);
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  it('a 50,000-entry dynamic fork over the cap is refused without scheduling work', () => {
    const run = new Run(env, dynamicFork(), { input: { list: list(50_000) } });
    expect(run.task('df').status).toBe('FAILED_WITH_TERMINAL_ERROR');
    expect(run.tasks.filter((t) => t.taskType === 'task_x')).toEqual([]);
  });

  it('a 1,000-iteration DO_WHILE over items keeps its per-iteration checks on the iteration, not the whole history', () => {
    env.doWhileMaxIterations = 1000;
    const loop = sys(
      'DO_WHILE',
      'loop',
      { items: '${workflow.input.items}' },
      { items: '${workflow.input.items}', loopCondition: 'unused', loopOver: [simple('body')] },
    );
    const run = new Run(env, workflowDef({ tasks: [loop] }), { input: { items: list(1000) } });
    for (let i = 1; i <= 1000; i++) run.complete(`body__${i}`, { i });
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { iteration: 1000 } });
  });
});

describe('payloads a system task produces (BATON_TASK_PAYLOAD_MAX_BYTES)', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);

  it("a JOIN whose merged output is over the limit fails with Conductor's reason; the worker's update that triggered it applies", () => {
    env.taskPayloadMaxBytes = 2048;
    const def = workflowDef({
      tasks: [sys('FORK_JOIN', 'f', {}, { forkTasks: [[simple('a')], [simple('b')]] }), sys('JOIN', 'j', {}, { joinOn: ['a', 'b'] })],
    });
    const run = new Run(env, def);
    expect(workerCompletes(run, run.task('a').taskId, { v: big(1500) })).toBe('applied');
    expect(workerCompletes(run, run.task('b').taskId, { v: big(1500) })).toBe('applied');
    const j = run.task('j');
    expect(j.status).toBe('FAILED_WITH_TERMINAL_ERROR');
    expect(j.outputData).toEqual({});
    expect(j.reasonForIncompletion).toMatch(
      new RegExp(`^The payload size: \\d+ of task: ${j.taskId} in workflow: wf-1  is greater than the permissible limit: 2048 bytes$`),
    );
    expect(run.task('b').status).toBe('COMPLETED');
    expect(run.wf.status).toBe('FAILED');
  });

  it('a new task whose resolved input is over the limit fails at once, without that input, and is never queued', () => {
    env.taskPayloadMaxBytes = 2048;
    const run = new Run(env, workflowDef({ tasks: [simple('a'), simple('b', 'task_b', { both: ['${a.output.v}', '${a.output.v}'] })] }));
    workerCompletes(run, run.task('a').taskId, { v: big(1500) });
    expect(run.task('b')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      inputData: {},
      reasonForIncompletion: expect.stringContaining('is greater than the permissible limit: 2048 bytes'),
    });
    expect(run.effects('enqueue')).toEqual([]);
    expect(run.wf.status).toBe('FAILED');
  });

  it("an HTTP task's result over the limit fails that task; a worker's own oversized result is left for the store to refuse", () => {
    env.taskPayloadMaxBytes = 2048;
    const http = workflowDef({ tasks: [sys('HTTP', 'h', { http_request: { uri: 'http://example.com', method: 'GET' } })] });
    const run = new Run(env, http);
    expect(workerCompletes(run, run.task('h').taskId, { response: { body: big(3000) } })).toBe('applied');
    expect(run.task('h')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      outputData: {},
      reasonForIncompletion: expect.stringContaining('permissible limit: 2048 bytes'),
    });
    expect(run.wf.status).toBe('FAILED');

    const worker = new Run(env, workflowDef({ tasks: [simple('a')] }));
    workerCompletes(worker, worker.task('a').taskId, { v: big(3000) });
    expect(worker.task('a').status).toBe('COMPLETED'); // the commit's payload check refuses this turn (413): nothing is kept
  });

  it("a child workflow's output over the task limit fails the SUB_WORKFLOW task instead of the child's notification", () => {
    env.taskPayloadMaxBytes = 2048;
    const run = new Run(env, workflowDef({ tasks: [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: 'child', version: 1 } })] }));
    const sub = run.task('sub');
    run.turn((t) =>
      childChanged(t, sub.taskId, { workflowId: sub.subWorkflowId!, status: 'COMPLETED', output: { v: big(3000) }, workflowName: 'child', workflowVersion: 1 }),
    );
    expect(run.task('sub')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      outputData: { subWorkflowId: sub.subWorkflowId },
      reasonForIncompletion: expect.stringContaining('permissible limit: 2048 bytes'),
    });
    expect(run.wf.status).toBe('FAILED');
  });

  it('a workflow output over the workflow limit fails the workflow, without that output', () => {
    env.workflowPayloadMaxBytes = 2048;
    const run = new Run(env, workflowDef({ tasks: [simple('a')], outputParameters: { v: '${a.output.v}' } }));
    workerCompletes(run, run.task('a').taskId, { v: big(1500) });
    expect(run.wf.status).toBe('COMPLETED');
    const over = new Run(env, workflowDef({ tasks: [simple('a')], outputParameters: { v: '${a.output.v}', w: '${a.output.v}' } }));
    workerCompletes(over, over.task('a').taskId, { v: big(1500) });
    expect(over.wf).toMatchObject({
      status: 'FAILED',
      output: {},
      reasonForIncompletion: expect.stringMatching(/^The payload size: \d+ of workflow: wf-1 is greater than the permissible limit: 2048 bytes$/),
    });
  });

  it('a loop whose accumulated output passes the limit fails at that iteration', () => {
    env.taskPayloadMaxBytes = 2048;
    const loop = sys(
      'DO_WHILE',
      'loop',
      { items: '${workflow.input.items}' },
      { items: '${workflow.input.items}', loopCondition: 'unused', loopOver: [simple('body')] },
    );
    const run = new Run(env, workflowDef({ tasks: [loop] }), { input: { items: list(5) } });
    run.complete('body__1', { v: big(800) });
    run.complete('body__2', { v: big(800) });
    expect(run.task('loop').status).toBe('IN_PROGRESS');
    run.complete('body__3', { v: big(800) });
    expect(run.task('loop')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: expect.stringContaining('permissible limit: 2048 bytes'),
    });
    expect(run.wf.status).toBe('FAILED');
  });
});
