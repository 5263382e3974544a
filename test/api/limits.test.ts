import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// Limits on every resource a client or a workflow author can make Baton hold (issue 9): each ends in a
// 4xx with a Conductor-style body, or in a task or workflow failure that says which limit and why.

const clientError = (status: number) => ({ status, instance: expect.any(String), message: expect.any(String), retryable: false, code: expect.any(String) });
const dynamicFork = (name: string, forkTaskType = 'SIMPLE') => ({
  name,
  tasks: [
    {
      name: 'df',
      taskReferenceName: 'df',
      type: 'FORK_JOIN_DYNAMIC',
      inputParameters: { forkTaskName: `${name}_branch`, forkTaskType, forkTaskInputs: '${workflow.input.list}' },
    },
    { name: 'dj', taskReferenceName: 'dj', type: 'JOIN' },
  ],
});
const list = (count: number) => Array.from({ length: count }, (_, i) => ({ i }));

describe('with the default limits', () => {
  let b: TestBaton;
  const api = apiClient(() => b.url);
  beforeAll(async () => {
    b = await startBaton();
  });
  afterAll(async () => {
    await b?.stop();
  });

  test('a workflow that starts itself as a sub-workflow stops at depth 32 (BATON_MAX_SUBWORKFLOW_DEPTH): 33 executions, each failed', async () => {
    const name = uniqueName('again');
    await api.register({ name, tasks: [{ name: 'sub', taskReferenceName: 'sub', type: 'SUB_WORKFLOW', subWorkflowParam: { name, version: 1 } }] });
    const root = await api.start(name);
    const count = async (): Promise<number> =>
      (await api.call('GET', `/api/workflow/search?size=0&query=${encodeURIComponent(`workflowType='${name}'`)}`)).body.totalHits;
    // Before the cap this chain grew without end (16,000 executions in 6 s): fail as soon as it passes 33.
    for (const deadline = Date.now() + 30_000; ;) {
      expect(await count()).toBeLessThanOrEqual(33);
      if ((await api.workflow(root)).status === 'FAILED' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await api.workflow(root)).status).toBe('FAILED');
    await eventually(async () => (await count()) === 33);
    let deepest: any = await api.workflow(root);
    for (let depth = 1; depth <= 32; depth++) {
      deepest = await api.workflow(deepest.tasks[0].subWorkflowId);
      expect(deepest).toMatchObject({ subWorkflowDepth: depth, status: 'FAILED' });
    }
    expect(deepest.tasks[0]).toMatchObject({
      taskType: 'SUB_WORKFLOW',
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: `Sub workflow ${name} not started: it would be nested 33 levels deep, over the limit of 32 (BATON_MAX_SUBWORKFLOW_DEPTH)`,
    });
    expect(deepest.tasks[0].subWorkflowId).toBeUndefined();
  });

  test('a dynamic fork of 1,001 branches fails with the reason (BATON_MAX_FORK_WIDTH), scheduling nothing', async () => {
    const name = uniqueName('wide');
    await api.register(dynamicFork(name));
    const id = await api.start(name, { list: list(1001) });
    const w = await api.waitForStatus(id, ['FAILED']);
    expect(w.tasks).toHaveLength(1);
    expect(w.tasks[0]).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: 'Dynamic fork df has 1001 branches, over the limit of 1000 (BATON_MAX_FORK_WIDTH)',
    });
  });

  test('a 1,000-branch dynamic fork of system tasks completes', async () => {
    const name = uniqueName('fork1000_inline');
    await api.register(dynamicFork(name, 'INLINE'));
    const id = await api.start(name, { list: Array.from({ length: 1000 }, (_, i) => ({ evaluatorType: 'value-param', expression: 'i', i })) });
    const done = await api.waitForStatus(id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.tasks).toHaveLength(1002);
  });

  // End to end over HTTP: 2,000 requests and turns.
  test('a 1,000-branch dynamic fork of worker tasks: polled in one batch, completed one by one, the workflow completes', async () => {
    const name = uniqueName('fork1000');
    await api.register(dynamicFork(name));
    const id = await api.start(name, { list: list(1000) });
    const polled: any[] = [];
    while (polled.length < 1000) {
      const r = await api.call('GET', `/api/tasks/poll/batch/${name}_branch?count=1000&timeout=1000&workerid=w`);
      expect(r.status).toBe(200);
      polled.push(...r.body);
    }
    // Eight workers at a time: the turns of one execution still run one after another in its actor.
    const queue = [...polled];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let t = queue.shift(); t; t = queue.shift()) {
          const r = await api.call('POST', '/api/tasks', { workflowInstanceId: id, taskId: t.taskId, status: 'COMPLETED', outputData: { i: t.inputData.i } });
          expect(r.status).toBe(200);
        }
      }),
    );
    const done = await api.waitForStatus(id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(Object.keys(done.tasks.find((t: any) => t.referenceTaskName === 'dj')!.outputData)).toHaveLength(1000);
  });

  describe('JSON nested deeper than BATON_MAX_JSON_DEPTH (128) is a 400 on both front ends, not a retryable 500', () => {
    /** `depth` objects nested in one another, as JSON text (JSON.stringify itself overflows at a few thousand). */
    const nest = (depth: number): string => `${'{"v":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;
    const send = (path: string, raw: string, contentType = 'application/json') => api.call('POST', path, undefined, { raw, contentType });

    test('a start whose body nests 128 levels is taken, one level more is refused', async () => {
      const name = uniqueName('deep');
      await api.register({ name, tasks: [{ name: `${name}_t`, taskReferenceName: 't' }] });
      const ok = await send('/api/workflow', `{"name":"${name}","input":${nest(127)}}`);
      expect(ok.status).toBe(200);
      expect((await api.workflow(ok.text)).input).toEqual(JSON.parse(nest(127)));
      for (const contentType of ['application/json', 'application/vnd.baton+json']) {
        const r = await send('/api/workflow', `{"name":"${name}","input":${nest(128)}}`, contentType);
        expect(r.status).toBe(400);
        expect(r.body).toEqual({ ...clientError(400), message: 'JSON body nested deeper than 128 levels (BATON_MAX_JSON_DEPTH)' });
      }
    });

    test('5,000 levels, the depth that overflowed the stack at commit: a worker update and a definition are refused, and nothing changes', async () => {
      const name = uniqueName('deep_update');
      await api.register({ name, tasks: [{ name: `${name}_t`, taskReferenceName: 't' }] });
      const id = await api.start(name);
      const [task] = (await api.call('GET', `/api/tasks/poll/batch/${name}_t?count=1&timeout=2000`)).body;
      for (const contentType of ['application/json', 'application/vnd.baton+json']) {
        const r = await send(
          '/api/tasks',
          `{"workflowInstanceId":"${id}","taskId":"${task.taskId}","status":"COMPLETED","outputData":${nest(5000)}}`,
          contentType,
        );
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ status: 400, retryable: false });
      }
      expect((await api.workflow(id)).tasks[0].status).toBe('IN_PROGRESS');
      const def = await send(
        '/api/metadata/workflowdef',
        `{"name":"${uniqueName('deep_def')}","tasks":[{"name":"x","taskReferenceName":"x","inputParameters":${nest(5000)}}]}`,
      );
      expect(def.status).toBe(400);
    });
  });

  describe('search queries past their size and depth are a 400 (SEARCH_LIMITS)', () => {
    const search = (params: Record<string, string>) => api.call('GET', `/api/workflow/search?${new URLSearchParams(params)}`);

    test.each([
      ['parentheses nested 17 deep', { query: `${'('.repeat(17)}status='RUNNING'${')'.repeat(17)}` }, 'parentheses nested deeper than 16'],
      [
        '2,100 nested parentheses',
        { query: `${'('.repeat(2100)}status='RUNNING'${')'.repeat(2100)}` },
        'query is 4216 characters long, over the limit of 4096',
      ],
      ['101 comparisons', { query: Array.from({ length: 101 }, (_, i) => `correlationId='c${i}'`).join(' OR ') }, 'more than 100 comparisons'],
      ['a query longer than 4,096 characters', { query: `correlationId='${'x'.repeat(4100)}'` }, 'query is 4116 characters long, over the limit of 4096'],
      ['1,001 values in IN lists', { query: `correlationId IN (${Array(1001).fill('c').join(',')})` }, 'more than 1000 values in IN lists'],
      ['101 free-text terms', { freeText: Array.from({ length: 101 }, (_, i) => `w${i}`).join(' ') }, 'freeText has more than 100 terms'],
      ['17 sort keys', { sort: Array.from({ length: 17 }, () => 'startTime:DESC').join(',') }, 'sort has more than 16 keys'],
    ])('%s', async (_what, params, message) => {
      const r = await search(params);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ ...clientError(400), message: expect.stringContaining(message) });
    });

    test('a 1,000-term AND chain, which SQLite refused as too deep (a 500), is a 400; 100 terms run', async () => {
      const chain = (count: number) => Array.from({ length: count }, () => `status='RUNNING'`).join(' AND ');
      const tooMany = await api.call('GET', `/api/workflow/search?query=${encodeURIComponent(chain(1000).slice(0, 4096))}`);
      expect(tooMany.status).toBe(400);
      const fine = await api.call('GET', `/api/workflow/search?query=${encodeURIComponent(chain(100))}`);
      expect(fine.status).toBe(200);
    });
  });

  describe('names: at most 255 characters, no control characters', () => {
    test.each([
      ['a task definition', '/api/metadata/taskdefs', (name: string) => [{ name }]],
      ['a workflow definition', '/api/metadata/workflowdef', (name: string) => ({ name, version: 1, tasks: [{ name: 'x', taskReferenceName: 'x' }] })],
      [
        'a task reference',
        '/api/metadata/workflowdef',
        (name: string) => ({ name: uniqueName('refs'), version: 1, tasks: [{ name: 'x', taskReferenceName: name }] }),
      ],
      [
        'an event handler',
        '/api/event',
        (name: string) => ({ name, event: 'conductor:x:y', actions: [{ action: 'start_workflow', start_workflow: { name: 'x' } }] }),
      ],
    ])('%s', async (_what, path, body) => {
      for (const bad of ['n'.repeat(256), 'bell\u0007name', 'line\nbreak']) {
        const r = await api.call('POST', path, body(bad));
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({
          ...clientError(400),
          validationErrors: [expect.objectContaining({ message: expect.stringMatching(/at most 255 characters|control characters/) })],
        });
      }
      expect((await api.call('POST', path, body(`ok_${'n'.repeat(240)}`))).status).toBe(200);
    });

    test('a poll for a task type, domain or worker id over 255 characters is a 400 on both front ends', async () => {
      const long = 'q'.repeat(256);
      for (const path of [
        `/api/tasks/poll/batch/${long}`,
        `/api/tasks/poll/batch/${long}/`,
        `/api/tasks/poll/${long}`,
        '/api/tasks/poll/batch/ok?domain=' + long,
        '/api/tasks/poll/batch/ok?workerid=' + long,
      ]) {
        const r = await api.call('GET', path);
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject(clientError(400));
      }
    });
  });

  test('polling 10,050 different task types keeps at most 10,000 poll records, the most recent ones', async () => {
    const prefix = uniqueName('pd');
    const types = Array.from({ length: 10_050 }, (_, i) => `${prefix}_${i}`);
    const queue = [...types];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let t = queue.shift(); t; t = queue.shift()) expect((await api.call('GET', `/api/tasks/poll/batch/${t}?timeout=0&workerid=w`)).status).toBe(200);
      }),
    );
    const all: any[] = (await api.call('GET', '/api/tasks/queue/polldata/all')).body;
    expect(all.length).toBeLessThanOrEqual(10_000);
    const names = new Set(all.map((p) => p.queueName));
    expect(names.has(types[types.length - 1]!)).toBe(true);
    expect(types.filter((t) => names.has(t)).length).toBeGreaterThanOrEqual(9_900);
  });
});

describe('with tight limits', () => {
  let b: TestBaton;
  const api = apiClient(() => b.url);
  beforeAll(async () => {
    b = await startBaton({
      BATON_MAX_TASKS_PER_EXECUTION: '20',
      BATON_TASK_PAYLOAD_MAX_BYTES: '2048',
      BATON_MAX_DEFINITION_BYTES: '4096',
      BATON_MAX_LONG_POLLS_PER_CLIENT: '2',
    });
  });
  afterAll(async () => {
    await b?.stop();
  });

  test('a dynamic fork that would pass BATON_MAX_TASKS_PER_EXECUTION fails with the reason', async () => {
    const name = uniqueName('many');
    await api.register(dynamicFork(name));
    const id = await api.start(name, { list: list(19) });
    const w = await api.waitForStatus(id, ['FAILED']);
    expect(w.tasks[0]).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: `Dynamic fork df would bring workflow ${id} to 21 tasks, over the limit of 20 tasks per execution (BATON_MAX_TASKS_PER_EXECUTION)`,
    });
  });

  test("a JOIN whose merged output is over BATON_TASK_PAYLOAD_MAX_BYTES fails itself; the worker's update that completed the last branch is not refused", async () => {
    const name = uniqueName('join');
    await api.register({
      name,
      tasks: [
        {
          name: 'f',
          taskReferenceName: 'f',
          type: 'FORK_JOIN',
          forkTasks: [[{ name: `${name}_a`, taskReferenceName: 'a' }], [{ name: `${name}_b`, taskReferenceName: 'b' }]],
        },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['a', 'b'] },
      ],
    });
    const id = await api.start(name);
    for (const type of [`${name}_a`, `${name}_b`]) {
      const [t] = (await api.call('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=2000`)).body;
      // Each output is under the limit; together, in the JOIN's output, they are over it. Before, this update got a 413.
      const r = await api.call('POST', '/api/tasks', { workflowInstanceId: id, taskId: t.taskId, status: 'COMPLETED', outputData: { v: 'x'.repeat(1500) } });
      expect(r.status).toBe(200);
    }
    const w = await api.waitForStatus(id, ['FAILED']);
    const j = w.tasks.find((t: any) => t.referenceTaskName === 'j')!;
    expect(j).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', outputData: {} });
    expect(j.reasonForIncompletion).toMatch(
      new RegExp(`^The payload size: \\d+ of task: ${j.taskId} in workflow: ${id}  is greater than the permissible limit: 2048 bytes$`),
    );
    expect(w.tasks.filter((t: any) => t.referenceTaskName !== 'j').map((t: any) => t.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
  });

  test("a worker's own result over the limit is still refused with a 413, changing nothing", async () => {
    const name = uniqueName('own');
    await api.register({ name, tasks: [{ name: `${name}_t`, taskReferenceName: 't' }] });
    const id = await api.start(name);
    const [t] = (await api.call('GET', `/api/tasks/poll/batch/${name}_t?count=1&timeout=2000`)).body;
    const r = await api.call('POST', '/api/tasks', { workflowInstanceId: id, taskId: t.taskId, status: 'COMPLETED', outputData: { v: 'x'.repeat(3000) } });
    expect(r.status).toBe(413);
    expect((await api.workflow(id)).tasks[0].status).toBe('IN_PROGRESS');
  });

  test('definitions larger than BATON_MAX_DEFINITION_BYTES are refused with a 413, inline ones at start too', async () => {
    const description = 'd'.repeat(5000);
    const wfDef = { name: uniqueName('big'), version: 1, description, tasks: [{ name: 'x', taskReferenceName: 'x' }] };
    for (const [path, body] of [
      ['/api/metadata/workflowdef', wfDef],
      ['/api/metadata/taskdefs', [{ name: uniqueName('bigtask'), description }]],
      [
        '/api/event',
        {
          name: uniqueName('bighandler'),
          event: 'conductor:x:y',
          actions: [{ action: 'start_workflow', start_workflow: { name: 'x', input: { description } } }],
        },
      ],
      ['/api/workflow', { name: wfDef.name, workflowDef: wfDef }],
    ] as const) {
      const r = await api.call('POST', path, body);
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ ...clientError(413), message: expect.stringContaining('over the limit of 4096 bytes (BATON_MAX_DEFINITION_BYTES)') });
    }
  });

  test('a client holding BATON_MAX_LONG_POLLS_PER_CLIENT long polls gets a 429 (retryable) for one more, on either front end; a slot freed is taken again', async () => {
    const type = uniqueName('lp');
    let heldEnded = false;
    const held = Promise.all([0, 1].map(() => api.call('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=5000`))).finally(() => (heldEnded = true));
    await eventually(async () => ((await api.call('GET', `/api/tasks/queue/polldata?taskType=${type}`)).body as any[]).length > 0);
    for (const path of [`/api/tasks/poll/batch/${type}?timeout=5000`, `/api/tasks/poll/batch/${type}/?timeout=5000`, `/api/tasks/poll/${type}`]) {
      const r = await api.call('GET', path);
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({
        status: 429,
        retryable: true,
        message: 'Too many polls in flight from this client: at most 2 at a time (BATON_MAX_LONG_POLLS_PER_CLIENT)',
      });
      expect(heldEnded).toBe(false); // answered at once, while the two long polls still wait
    }
    for (const r of await held) expect(r).toMatchObject({ status: 200, body: [] });
    expect((await api.call('GET', `/api/tasks/poll/batch/${type}?timeout=10`)).status).toBe(200);
  });
});

describe('with BATON_MAX_DEFINITIONS=3', () => {
  let b: TestBaton;
  const api = apiClient(() => b.url);
  beforeAll(async () => {
    b = await startBaton({ BATON_MAX_DEFINITIONS: '3' });
  });
  afterAll(async () => {
    await b?.stop();
  });

  test('a fourth definition of a kind is refused with a 400; updating one that exists still works', async () => {
    const defs = [1, 2, 3, 4].map((v) => ({ name: 'counted', version: v, tasks: [{ name: 'x', taskReferenceName: 'x' }] }));
    for (const d of defs.slice(0, 3)) expect((await api.call('POST', '/api/metadata/workflowdef', d)).status).toBe(200);
    const refused = await api.call('POST', '/api/metadata/workflowdef', defs[3]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      ...clientError(400),
      message: 'Cannot register more than 3 workflow definitions (BATON_MAX_DEFINITIONS); delete unused ones first',
    });
    expect((await api.call('POST', '/api/metadata/workflowdef?overwrite=true', { ...defs[2], description: 'again' })).status).toBe(200);
    expect((await api.call('POST', '/api/metadata/taskdefs', [{ name: 't1' }, { name: 't2' }, { name: 't3' }])).status).toBe(200);
    expect((await api.call('POST', '/api/metadata/taskdefs', [{ name: 't4' }])).status).toBe(400);
    expect((await api.call('PUT', '/api/metadata/taskdefs', { name: 't1', description: 'updated' })).status).toBe(200);
  });
});
