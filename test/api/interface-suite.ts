import express from 'express';
import type { Server } from 'node:http';
import { apiClient } from '../support/api-client';
import { eventually } from '../support/baton';

// Every call a client of Baton makes (Conductor's REST API, with the alternate spellings docs/differences.md
// lists), one by one, over real HTTP. Shared by the embedded suite
// (test/api/interface.test.ts) and the two-replica distributed suite (test/distributed/api.test.ts).

/** Where the suite sends requests: `url()` is asked once per request, so a cluster can alternate replicas. */
export interface InterfaceTarget {
  url(): string;
  stop(): Promise<void>;
  /** Headers of every request (a deployment with auth on: its access token). */
  headers?: () => Record<string, string>;
}

export function describeInterface(makeTarget: () => Promise<InterfaceTarget>): void {
  let target: InterfaceTarget;
  // Polls and results go to /api/task, the singular spelling of Conductor's /api/tasks that Baton also serves.
  const api = apiClient(() => target.url(), { tasksPath: '/api/task', headers: () => target?.headers?.() ?? {} });

  beforeAll(async () => {
    target = await makeTarget();
  });
  afterAll(async () => {
    await target?.stop();
  });

  describe('start, poll, update', () => {
    test('a sequential workflow resolves inputs, outputs and completes', async () => {
      const name = api.uniq('seq');
      const ta = api.uniq('ta');
      const tb = api.uniq('tb');
      await api.register({
        name,
        tasks: [
          {
            name: ta,
            taskReferenceName: 'a',
            type: 'SIMPLE',
            inputParameters: { x: '${workflow.input.x}', id: '${workflow.workflowId}', text: 'x is ${workflow.input.x}' },
          },
          {
            name: tb,
            taskReferenceName: 'b',
            inputParameters: { fromA: '${a.output.nested.v}', list: '${a.output.items[1]}', cid: '${workflow.correlationId}' },
          },
        ],
        outputParameters: { result: '${b.output.r}', a: '${a.output}' },
      });
      const start = await api.call('POST', '/api/workflow', { name, input: { x: 3 }, correlationId: 'c-1' });
      expect(start.status).toBe(200);
      expect(start.contentType).toContain('text/plain');
      const id = start.text;
      const t1 = await api.pollOne(ta, { workerId: 'w1' });
      expect(t1.inputData).toEqual({ x: 3, id, text: 'x is 3' });
      expect(t1.status).toBe('IN_PROGRESS');
      expect(t1.workerId).toBe('w1');
      await api.complete(t1, { nested: { v: 'deep' }, items: [1, 2] });
      const t2 = await api.pollOne(tb);
      expect(t2.inputData).toEqual({ fromA: 'deep', list: 2, cid: 'c-1' });
      await api.complete(t2, { r: 'ok' });
      const done = await api.workflow(id);
      expect(done.status).toBe('COMPLETED');
      expect(done.output).toEqual({ result: 'ok', a: { nested: { v: 'deep' }, items: [1, 2] } });
      expect(done.tasks.map((t: any) => t.status)).toEqual(['COMPLETED', 'COMPLETED']);
      const search = await eventually(async () => {
        const r = await api.call('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId = '${id}' AND status = 'COMPLETED'`)}`);
        return r.body.totalHits === 1 ? r.body : undefined;
      });
      expect(search.results[0]).toMatchObject({ workflowType: name, workflowId: id, status: 'COMPLETED', correlationId: 'c-1' });
    });

    test('single poll with nothing answers 204; batch poll answers [] after its timeout', async () => {
      const type = api.uniq('empty');
      expect((await api.call('GET', `/api/task/poll/${type}`)).status).toBe(204);
      const r = await api.call('GET', `/api/task/poll/batch/${type}?timeout=150&count=3`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual([]);
    });

    test('a batch long poll returns as soon as a task arrives', async () => {
      const name = api.uniq('lp');
      const t = api.uniq('lpt');
      await api.register({ name, tasks: [{ name: t, taskReferenceName: 'a' }] });
      const waiting = api.call('GET', `/api/task/poll/batch/${t}?timeout=5000&count=1`);
      await new Promise((r) => setImmediate(r));
      const id = (await api.call('POST', '/api/workflow', { name })).text;
      const r = await waiting;
      expect(r.body).toHaveLength(1);
      expect(r.body[0].workflowInstanceId).toBe(id);
    });

    test('failed tasks are retried per their definition; FAILED_WITH_TERMINAL_ERROR is not', async () => {
      const name = api.uniq('retry');
      const t = api.uniq('rt');
      expect((await api.call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 1, retryDelaySeconds: 0, responseTimeoutSeconds: 60 }])).status).toBe(
        200,
      );
      await api.register({ name, tasks: [{ name: t, taskReferenceName: 'a' }] });
      const id = (await api.call('POST', '/api/workflow', { name })).text;
      await api.complete(await api.pollOne(t), {}, { status: 'FAILED', extra: { reasonForIncompletion: 'boom' } });
      const second = await api.pollOne(t);
      expect(second.retryCount).toBe(1);
      await api.complete(second, {}, { status: 'FAILED', extra: { reasonForIncompletion: 'boom again' } });
      await api.waitForStatus(id, 'FAILED');
      const w = await api.workflow(id);
      expect(w.reasonForIncompletion).toContain('boom again');
      expect(w.tasks).toHaveLength(2);

      const id2 = (await api.call('POST', '/api/workflow', { name })).text;
      await api.complete(await api.pollOne(t), {}, { status: 'FAILED_WITH_TERMINAL_ERROR', extra: { reasonForIncompletion: 'fatal' } });
      await api.waitForStatus(id2, 'FAILED');
      expect((await api.workflow(id2)).tasks).toHaveLength(1);
    });

    test('an optional task that fails lets the workflow go on', async () => {
      const name = api.uniq('opt');
      const t = api.uniq('ot');
      await api.call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 0 }]);
      await api.register({
        name,
        tasks: [
          { name: t, taskReferenceName: 'a', optional: true },
          { name: t, taskReferenceName: 'b' },
        ],
      });
      const id = (await api.call('POST', '/api/workflow', { name })).text;
      await api.complete(await api.pollOne(t), {}, { status: 'FAILED' });
      await api.complete(await api.pollOne(t));
      await api.waitForStatus(id, 'COMPLETED');
      expect((await api.workflow(id)).tasks.map((x: any) => x.status)).toEqual(['COMPLETED_WITH_ERRORS', 'COMPLETED']);
    });

    test('IN_PROGRESS with callbackAfterSeconds hands the task out again later', async () => {
      const name = api.uniq('cb');
      const t = api.uniq('cbt');
      await api.register({ name, tasks: [{ name: t, taskReferenceName: 'a' }] });
      const id = (await api.call('POST', '/api/workflow', { name })).text;
      const first = await api.pollOne(t);
      await api.complete(first, { progress: 50 }, { status: 'IN_PROGRESS', extra: { callbackAfterSeconds: 1 } });
      expect((await api.call('GET', `/api/task/poll/batch/${t}?timeout=100`)).body).toEqual([]);
      const again = await api.pollOne(t);
      expect(again.taskId).toBe(first.taskId);
      expect(again.pollCount).toBe(2);
      await api.complete(again, { progress: 100 });
      await api.waitForStatus(id, 'COMPLETED');
    });

    test('a polled task with no update within responseTimeoutSeconds is timed out and retried', async () => {
      const name = api.uniq('rto');
      const t = api.uniq('rtot');
      await api.call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 1, retryDelaySeconds: 0, responseTimeoutSeconds: 1, timeoutSeconds: 0 }]);
      await api.register({ name, tasks: [{ name: t, taskReferenceName: 'a' }] });
      const id = (await api.call('POST', '/api/workflow', { name })).text;
      const lost = await api.pollOne(t);
      const retried = await api.pollOne(t);
      expect(retried.taskId).not.toBe(lost.taskId);
      const w = await api.workflow(id);
      expect(w.tasks[0].status).toBe('TIMED_OUT');
      expect(w.tasks[0].reasonForIncompletion).toContain('responseTimeout');
      await api.complete(retried);
      await api.waitForStatus(id, 'COMPLETED');
    });

    test('priority orders the queue: lower number first', async () => {
      const name = api.uniq('prio');
      const t = api.uniq('pt');
      await api.register({ name, tasks: [{ name: t, taskReferenceName: 'a' }] });
      const low = (await api.call('POST', '/api/workflow', { name, priority: 9 })).text;
      const high = (await api.call('POST', '/api/workflow', { name, priority: 1 })).text;
      const r = await api.call('GET', `/api/task/poll/batch/${t}?count=2&timeout=500`);
      expect(r.body.map((x: any) => x.workflowInstanceId)).toEqual([high, low]);
    });

    test('an ad hoc definition runs without registration', async () => {
      const t = api.uniq('adhoc');
      const id = (
        await api.call('POST', '/api/workflow', {
          name: 'adhoc',
          workflowDef: { name: 'adhoc', version: 1, tasks: [{ name: t, taskReferenceName: 'a', type: 'SIMPLE' }] },
        })
      ).text;
      await api.complete(await api.pollOne(t));
      await api.waitForStatus(id, 'COMPLETED');
    });
  });

  describe('HUMAN tasks', () => {
    const humanWf = async (): Promise<string> => {
      const name = api.uniq('human');
      await api.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'approval', type: 'HUMAN' }] });
      return (await api.call('POST', '/api/workflow', { name })).text;
    };

    test('the queue update call by reference completes it with the body as output', async () => {
      const id = await humanWf();
      expect((await api.workflow(id)).tasks[0].status).toBe('IN_PROGRESS');
      const r = await api.call('POST', `/api/queue/update/${id}/approval/COMPLETED`, { approvedBy: 'ana', level: 2 });
      expect(r.status).toBe(200);
      const w = await api.workflow(id);
      expect(w.status).toBe('COMPLETED');
      expect(w.tasks[0].outputData).toEqual({ approvedBy: 'ana', level: 2 });
    });

    test('the queue update call by task id fails it', async () => {
      const id = await humanWf();
      const taskId = (await api.workflow(id)).tasks[0].taskId;
      expect((await api.call('POST', `/api/queue/update/${id}/task/${taskId}/FAILED`, { why: 'no' })).status).toBe(200);
      await api.waitForStatus(id, 'FAILED');
    });

    test('POST /api/task completes it', async () => {
      const id = await humanWf();
      const task = (await api.workflow(id)).tasks[0];
      await api.complete(task, { ok: true });
      expect((await api.workflow(id)).status).toBe('COMPLETED');
    });

    test('an invalid status or unknown reference changes nothing', async () => {
      const id = await humanWf();
      expect((await api.call('POST', `/api/queue/update/${id}/approval/DONE`, {})).status).toBe(400);
      expect((await api.call('POST', `/api/queue/update/${id}/nope/COMPLETED`, {})).status).toBe(404);
      expect((await api.workflow(id)).tasks[0].status).toBe('IN_PROGRESS');
    });
  });

  describe('managing executions', () => {
    const twoStep = async () => {
      const name = api.uniq('mgmt');
      const t = api.uniq('mt');
      await api.call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 0 }]);
      await api.register({
        name,
        tasks: [
          { name: t, taskReferenceName: 'a' },
          { name: t, taskReferenceName: 'b' },
        ],
      });
      return { name, t, id: (await api.call('POST', '/api/workflow', { name, input: { k: 1 } })).text };
    };

    test('pause holds the next task until resume', async () => {
      const { t, id } = await twoStep();
      const a = await api.pollOne(t);
      expect((await api.call('PUT', `/api/workflow/${id}/pause`)).status).toBe(200);
      await api.complete(a);
      expect((await api.workflow(id)).status).toBe('PAUSED');
      expect((await api.workflow(id)).tasks).toHaveLength(1);
      expect((await api.call('PUT', `/api/workflow/${id}/resume`)).status).toBe(200);
      const b2 = await api.pollOne(t);
      expect(b2.referenceTaskName).toBe('b');
    });

    test('terminate cancels tasks and records the reason; remove deletes', async () => {
      const { id } = await twoStep();
      expect((await api.call('DELETE', `/api/workflow/${id}?reason=${encodeURIComponent('stop it')}`)).status).toBe(200);
      const w = await api.workflow(id);
      expect(w.status).toBe('TERMINATED');
      expect(w.reasonForIncompletion).toBe('stop it');
      expect(w.tasks[0].status).toBe('CANCELED');
      expect((await api.call('DELETE', `/api/workflow/${id}/remove`)).status).toBe(200);
      expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(404);
    });

    test('retry reschedules the failed task; restart starts over with the same id', async () => {
      const { t, id } = await twoStep();
      await api.complete(await api.pollOne(t), {}, { status: 'FAILED' });
      await api.waitForStatus(id, 'FAILED');
      expect((await api.call('POST', `/api/workflow/${id}/retry`)).status).toBe(204);
      const again = await api.pollOne(t);
      expect(again.referenceTaskName).toBe('a');
      expect(again.retryCount).toBe(1);
      await api.complete(again);
      await api.complete(await api.pollOne(t));
      await api.waitForStatus(id, 'COMPLETED');
      expect((await api.call('POST', `/api/workflow/${id}/restart`)).status).toBe(204);
      const w = await api.workflow(id);
      expect(w.status).toBe('RUNNING');
      expect(w.tasks).toHaveLength(1);
      expect(w.tasks[0].retryCount).toBe(0);
    });

    test('rerun from a task with new input', async () => {
      const { t, id } = await twoStep();
      await api.complete(await api.pollOne(t), { v: 1 });
      const b1 = await api.pollOne(t);
      await api.complete(b1, { v: 2 });
      await api.waitForStatus(id, 'COMPLETED');
      const r = await api.call('POST', `/api/workflow/${id}/rerun`, { reRunFromTaskId: b1.taskId, taskInput: { fresh: true } });
      expect(r.status).toBe(200);
      expect(r.text).toBe(id);
      const again = await api.pollOne(t);
      expect(again.taskId).toBe(b1.taskId);
      expect(again.inputData).toEqual({ fresh: true });
    });

    test('skip a task not yet scheduled; its payload becomes its input/output', async () => {
      const { t, id } = await twoStep();
      const r = await api.call('PUT', `/api/workflow/${id}/skiptask/b`, { taskInput: { i: 1 }, taskOutput: { o: 2 } });
      expect(r.status).toBe(200);
      await api.complete(await api.pollOne(t));
      await api.waitForStatus(id, 'COMPLETED');
      const skipped = (await api.workflow(id)).tasks.find((x: any) => x.referenceTaskName === 'b');
      expect(skipped).toMatchObject({ status: 'SKIPPED', inputData: { i: 1 }, outputData: { o: 2 } });
    });

    test('running and correlated lookups', async () => {
      const name = api.uniq('corr');
      await api.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
      const id = (await api.call('POST', '/api/workflow', { name, correlationId: 'order-7' })).text;
      expect((await api.call('GET', `/api/workflow/running/${name}`)).body).toEqual([id]);
      const c = await api.call('GET', `/api/workflow/running/${name}/correlated/order-7`);
      expect(c.body.map((w: any) => w.workflowId)).toEqual([id]);
      await api.call('DELETE', `/api/workflow/${id}`);
      expect((await api.call('GET', `/api/workflow/running/${name}/correlated/order-7`)).body).toEqual([]);
      expect((await api.call('GET', `/api/workflow/${name}/correlated/order-7?includeClosed=true`)).body).toHaveLength(1);
    });
  });

  describe('HTTP tasks', () => {
    let target: Server;
    let targetUrl: string;
    beforeAll(async () => {
      const app = express();
      app.use(express.json());
      app.post('/echo', (req, res) => void res.json({ got: req.body, header: req.get('x-test') }));
      app.get('/fail', (_req, res) => void res.status(503).send('down'));
      await new Promise<void>((r) => (target = app.listen(0, '127.0.0.1', () => r())));
      targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((r) => target.close(() => r())));

    test('a 2xx response completes the task with the parsed body', async () => {
      const name = api.uniq('http');
      await api.register({
        name,
        tasks: [
          {
            name: 'call',
            taskReferenceName: 'h',
            type: 'HTTP',
            inputParameters: {
              http_request: {
                uri: `${targetUrl}/echo`,
                method: 'POST',
                body: { n: '${workflow.input.n}' },
                headers: { 'x-test': 'yes' },
                'content-Type': 'application/json',
                connectionTimeOut: '2',
                readTimeOut: '2',
              },
            },
          },
        ],
      });
      const id = (await api.call('POST', '/api/workflow', { name, input: { n: 4 } })).text;
      await api.waitForStatus(id, 'COMPLETED');
      const out = (await api.workflow(id)).tasks[0].outputData.response;
      expect(out.statusCode).toBe(200);
      expect(out.body).toEqual({ got: { n: 4 }, header: 'yes' });
    });

    test('a non-2xx response fails the task', async () => {
      const name = api.uniq('httpf');
      await api.register({
        name,
        tasks: [{ name: 'call', taskReferenceName: 'h', type: 'HTTP', inputParameters: { http_request: { uri: `${targetUrl}/fail`, method: 'GET' } } }],
      });
      const id = (await api.call('POST', '/api/workflow', { name })).text;
      await api.waitForStatus(id, 'FAILED');
      expect((await api.workflow(id)).tasks[0].reasonForIncompletion).toContain('503');
    });
  });

  describe('metadata', () => {
    test('task definitions: register, read, update, delete', async () => {
      const t = api.uniq('def');
      expect(
        (
          await api.call('POST', '/api/metadata/taskdef', [
            { name: t, retryCount: 2, retryLogic: 'FIXED', timeoutPolicy: 'TIME_OUT_WF', timeoutSeconds: 600, responseTimeoutSeconds: 60 },
          ])
        ).status,
      ).toBe(200);
      const got = await api.call('GET', `/api/metadata/taskdef/${t}`);
      expect(got.body).toMatchObject({ name: t, retryCount: 2, retryDelaySeconds: 60 });
      expect((await api.call('PUT', '/api/metadata/taskdef', { ...got.body, retryCount: 5 })).status).toBe(200);
      expect((await api.call('GET', `/api/metadata/taskdef/${t}`)).body.retryCount).toBe(5);
      expect((await api.call('GET', '/api/metadata/taskdef')).body.some((d: any) => d.name === t)).toBe(true);
      expect((await api.call('DELETE', `/api/metadata/taskdef/${t}`)).status).toBe(200);
      expect((await api.call('GET', `/api/metadata/taskdef/${t}`)).status).toBe(404);
    });

    test('workflow definitions: versions, latest, bulk upsert, conflict', async () => {
      const name = api.uniq('wdef');
      const def = { name, version: 1, tasks: [{ name: 'x', taskReferenceName: 'x' }] };
      expect((await api.call('POST', '/api/metadata/workflowdef', def)).status).toBe(200);
      expect((await api.call('POST', '/api/metadata/workflowdef', def)).status).toBe(409);
      expect((await api.call('PUT', '/api/metadata/workflowdef', [{ ...def, version: 2, description: 'v2' }])).status).toBe(200);
      expect((await api.call('GET', `/api/metadata/workflowdef/${name}`)).body.version).toBe(2);
      expect((await api.call('GET', `/api/metadata/workflowdef/${name}?version=1`)).body.version).toBe(1);
      expect((await api.call('GET', '/api/metadata/workflowdef')).body.filter((d: any) => d.name === name)).toHaveLength(2);
    });
  });

  describe('bad input gets a 4xx JSON error and changes nothing', () => {
    const expectError = (r: { status: number; body: any; contentType: string }, status: number) => {
      expect(r.status).toBe(status);
      expect(r.contentType).toContain('application/json');
      expect(r.body).toMatchObject({ status, message: expect.any(String) });
    };

    test('malformed JSON', async () => {
      expectError(await api.call('POST', '/api/workflow', undefined, { raw: '{"name": ' }), 400);
      expectError(await api.call('POST', '/api/metadata/taskdef', undefined, { raw: '[{' }), 400);
    });

    test('wrong types and missing fields', async () => {
      const r = await api.call('POST', '/api/workflow', { name: 42 });
      expectError(r, 400);
      expect(r.body.validationErrors.length).toBeGreaterThan(0);
      expectError(await api.call('POST', '/api/metadata/taskdef', [{ name: 't', retryCount: 'many' }]), 400);
      expectError(await api.call('POST', '/api/task', { taskId: 'x', status: 'COMPLETED' }), 400);
    });

    test('unknown ids and definitions', async () => {
      expectError(await api.call('GET', '/api/workflow/00000000-0000-0000-0000-000000000000'), 404);
      expectError(await api.call('POST', '/api/workflow', { name: api.uniq('missing') }), 404);
      expectError(await api.call('GET', '/api/metadata/workflowdef/nope-nope'), 404);
      expectError(await api.call('GET', '/api/tasks/nope'), 404);
      expectError(await api.call('GET', '/apitasks/nope'), 404);
      expectError(await api.call('PUT', '/api/workflow/nope/pause'), 404);
      expectError(await api.call('POST', '/api/task', { workflowInstanceId: 'nope', taskId: 'nope', status: 'COMPLETED' }), 404);
    });

    test('an invalid status', async () => {
      expectError(await api.call('POST', '/api/task', { workflowInstanceId: 'w', taskId: 't', status: 'DONE' }), 400);
    });

    test('priority outside 0..99', async () => {
      const name = api.uniq('pr');
      await api.register({ name, tasks: [{ name: 'x', taskReferenceName: 'x' }] });
      expectError(await api.call('POST', '/api/workflow', { name, priority: 100 }), 400);
      expectError(await api.call('POST', '/api/workflow', { name, priority: -1 }), 400);
      expect((await api.call('GET', `/api/workflow/running/${name}`)).body).toEqual([]);
    });

    test('duplicate reference names and a task without taskReferenceName', async () => {
      const name = api.uniq('dup');
      expectError(
        await api.call('POST', '/api/metadata/workflowdef', {
          name,
          tasks: [
            { name: 'a', taskReferenceName: 'r' },
            { name: 'b', taskReferenceName: 'r' },
          ],
        }),
        400,
      );
      expectError(await api.call('POST', '/api/metadata/workflowdef', { name, tasks: [{ name: 'a' }] }), 400);
      expectError(
        await api.call('POST', '/api/metadata/workflowdef', {
          name,
          tasks: [
            {
              name: 'a',
              taskReferenceName: 'f',
              type: 'FORK_JOIN',
              forkTasks: [[{ name: 'x', taskReferenceName: 'r' }], [{ name: 'y', taskReferenceName: 'r' }]],
            },
          ],
        }),
        400,
      );
      expect((await api.call('GET', `/api/metadata/workflowdef/${name}`)).status).toBe(404);
    });

    test('responseTimeoutSeconds above timeoutSeconds', async () => {
      expectError(await api.call('POST', '/api/metadata/taskdef', [{ name: api.uniq('bad'), timeoutSeconds: 10 }]), 400);
    });

    test('search: bad query syntax and size above 5000', async () => {
      expectError(await api.call('GET', `/api/workflow/search?query=${encodeURIComponent("status = 'X' AND (")}`), 400);
      expectError(await api.call('GET', '/api/workflow/search?size=5001'), 400);
    });

    test('batch poll timeout above 5 s', async () => {
      expectError(await api.call('GET', '/api/task/poll/batch/x?timeout=6000'), 400);
    });

    test('unknown route', async () => {
      expectError(await api.call('GET', '/api/nothing-here'), 404);
    });
  });
}
