import type { ApiClient } from '../support/api-client';
import { eventually } from '../support/baton';

// Skipping tasks, and the Conductor behaviours of sub-workflow chains, permissive tasks and TERMINATE,
// over real HTTP. Shared by the embedded suite (test/api/skip.test.ts) and the two-replica distributed one
// (test/distributed/skip.test.ts), where the skip goes through the workflow actor and the queue removal
// through the queue actors of another replica.

export function describeSkipAndChains(client: () => ApiClient): void {
  const api = (): ApiClient => client();

  /** A task definition without retries, and a workflow of worker tasks `refs` of it. */
  const workers = async (refs: string[], extra: Record<string, unknown> = {}) => {
    const name = api().uniq('skipwf');
    const t = api().uniq('skipt');
    await api().call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 0 }]);
    await api().register({ name, tasks: refs.map((ref) => ({ name: t, taskReferenceName: ref })), ...extra });
    return { name, t };
  };
  const queueSize = async (t: string): Promise<number> => (await api().call('GET', `/api/tasks/queue/size?taskType=${t}`)).body as number;
  const leased = async (t: string): Promise<number> => {
    const all = (await api().call('GET', '/api/tasks/queue/all/verbose')).body as Record<string, Record<string, { uacked: number }>>;
    return Object.values(all[t] ?? {}).reduce((n, p) => n + p.uacked, 0);
  };

  describe('skip a task the workflow waits on', () => {
    test('a SCHEDULED task: SKIPPED with the payload as output, out of its queue, and the workflow goes on', async () => {
      const { name, t } = await workers(['a', 'b'], { outputParameters: { fromA: '${a.output.given}' } });
      const id = await api().start(name);
      await eventually(async () => (await queueSize(t)) === 1);
      const r = await api().call('PUT', `/api/workflow/${id}/skiptask/a`, { taskOutput: { given: 'by skip' } });
      expect(r.status).toBe(200);
      const wf = await api().waitForTask(id, 'b', 'SCHEDULED');
      expect(wf).toMatchObject({ referenceTaskName: 'b' });
      const a = (await api().workflow(id)).tasks.find((x) => x.referenceTaskName === 'a');
      expect(a).toMatchObject({ status: 'SKIPPED', outputData: { given: 'by skip' } });
      // Only b is left in the queue: a worker gets b, never a.
      expect(await queueSize(t)).toBe(1);
      const next = await api().pollOne(t);
      expect(next.referenceTaskName).toBe('b');
      await api().complete(next);
      expect((await api().waitForStatus(id, 'COMPLETED')).output).toEqual({ fromA: 'by skip' });
    });

    test("an IN_PROGRESS task: its lease goes, and its worker's late update is refused with 409 while it stays SKIPPED", async () => {
      const { name, t } = await workers(['a', 'b']);
      const id = await api().start(name);
      const polled = await api().pollOne(t);
      expect(polled.referenceTaskName).toBe('a');
      // The query-parameter form of the call, as Conductor binds it.
      const r = await api().call('PUT', `/api/workflow/skiptask?workflowId=${id}&taskReferenceName=a&taskOutput=${encodeURIComponent('{"q":1}')}`);
      expect(r.status).toBe(200);
      expect(await leased(t)).toBe(0);
      const late = await api().call('POST', '/api/tasks', { workflowInstanceId: id, taskId: polled.taskId, status: 'COMPLETED', outputData: { late: true } });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ status: 409, message: expect.stringContaining('was skipped') });
      const ack = await api().call('POST', `/api/tasks/${polled.taskId}/ack?workerid=w`);
      expect(ack.text).toBe('false');
      const wf = await api().workflow(id);
      expect(wf.tasks.find((x) => x.referenceTaskName === 'a')).toMatchObject({ status: 'SKIPPED', outputData: { q: 1 } });
      expect(wf.tasks.find((x) => x.referenceTaskName === 'b')).toMatchObject({ status: 'SCHEDULED' });
    });

    test('a WAIT task and a HUMAN task: skipped, the workflow completes', async () => {
      const name = api().uniq('skipwait');
      await api().register({
        name,
        tasks: [
          { name: 'w', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '1 hour' } },
          { name: 'h', taskReferenceName: 'h', type: 'HUMAN' },
        ],
        outputParameters: { approved: '${h.output.approved}' },
      });
      const id = await api().start(name);
      await api().waitForTask(id, 'w', 'IN_PROGRESS');
      expect((await api().call('PUT', `/api/workflow/${id}/skiptask/w`)).status).toBe(200);
      await api().waitForTask(id, 'h', 'IN_PROGRESS');
      expect((await api().call('PUT', `/api/workflow/${id}/skiptask/h`, { taskOutput: { approved: 'skipped' } })).status).toBe(200);
      expect((await api().waitForStatus(id, 'COMPLETED')).output).toEqual({ approved: 'skipped' });
    });

    test('a SUB_WORKFLOW task: the child is terminated, the parent goes on', async () => {
      const { name: child, t } = await workers(['c']);
      const name = api().uniq('skipsub');
      await api().register({
        name,
        tasks: [
          { name: 'sub', taskReferenceName: 'sub', type: 'SUB_WORKFLOW', subWorkflowParam: { name: child, version: 1 } },
          { name: 'n', taskReferenceName: 'n', type: 'SET_VARIABLE', inputParameters: { v: 1 } },
        ],
      });
      const id = await api().start(name);
      const sub = await api().waitForTask(id, 'sub', 'IN_PROGRESS');
      const childId = sub.subWorkflowId!;
      await api().waitForTask(childId, 'c', 'SCHEDULED');
      expect((await api().call('PUT', `/api/workflow/${id}/skiptask/sub`)).status).toBe(200);
      await api().waitForStatus(id, 'COMPLETED');
      const ended = await api().waitForStatus(childId, 'TERMINATED');
      expect(ended.reasonForIncompletion).toBe(`Parent task sub of workflow ${id} was skipped`);
      expect((await api().workflow(id)).tasks[0]).toMatchObject({ referenceTaskName: 'sub', status: 'SKIPPED', outputData: { subWorkflowId: childId } });
      await eventually(async () => (await queueSize(t)) === 0);
    });

    test('a task skipped before it was scheduled is listed first; an ended one, an unknown one or a JOIN that runs are refused', async () => {
      const { name, t } = await workers(['a', 'b', 'c']);
      const id = await api().start(name);
      expect((await api().call('PUT', `/api/workflow/${id}/skiptask/b`)).status).toBe(200);
      await api().complete(await api().pollOne(t));
      expect((await api().call('PUT', `/api/workflow/${id}/skiptask/a`)).status).toBe(409);
      expect((await api().call('PUT', `/api/workflow/${id}/skiptask/nope`)).status).toBe(400);
      const wf = await api().waitForTask(id, 'c', 'SCHEDULED');
      expect(wf.referenceTaskName).toBe('c');
      expect((await api().workflow(id)).tasks.map((x) => `${x.referenceTaskName}:${x.status}:${x.seq}`)).toEqual([
        'b:SKIPPED:0',
        'a:COMPLETED:1',
        'c:SCHEDULED:2',
      ]);

      const fork = api().uniq('skipfork');
      await api().register({
        name: fork,
        tasks: [
          { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', forkTasks: [[{ name: t, taskReferenceName: 'x' }], [{ name: t, taskReferenceName: 'y' }]] },
          { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['x', 'y'] },
        ],
      });
      const fid = await api().start(fork);
      await api().waitForTask(fid, 'j', 'IN_PROGRESS');
      const refused = await api().call('PUT', `/api/workflow/${fid}/skiptask/j`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ message: expect.stringContaining('JOIN') });
    });
  });

  describe('sub-workflow chains', () => {
    test('SUB_WORKFLOW name and version given as expressions are resolved', async () => {
      const { name: child, t } = await workers(['c']);
      const name = api().uniq('subexpr');
      await api().register({
        name,
        tasks: [
          {
            name: 'sub',
            taskReferenceName: 'sub',
            type: 'SUB_WORKFLOW',
            subWorkflowParam: { name: '${workflow.input.subwf}', version: '${workflow.input.v}' },
          },
        ],
      });
      const id = await api().start(name, { subwf: child, v: 1 });
      const sub = await api().waitForTask(id, 'sub', 'IN_PROGRESS');
      await api().complete(await api().pollOne(t), { r: 1 });
      expect((await api().waitForStatus(sub.subWorkflowId!, 'COMPLETED')).workflowName).toBe(child);
      await api().waitForStatus(id, 'COMPLETED');
    });

    test('retrying the failed leaf of root -> middle -> leaf reopens every ancestor, and the root completes with the leaf', async () => {
      const { name: leaf, t } = await workers(['l']);
      const middle = api().uniq('middle');
      const root = api().uniq('root');
      await api().register({
        name: middle,
        tasks: [{ name: 'm', taskReferenceName: 'm', type: 'SUB_WORKFLOW', subWorkflowParam: { name: leaf, version: 1 } }],
      });
      await api().register({
        name: root,
        tasks: [{ name: 'r', taskReferenceName: 'r', type: 'SUB_WORKFLOW', subWorkflowParam: { name: middle, version: 1 } }],
      });
      const rootId = await api().start(root);
      const middleId = (await api().waitForTask(rootId, 'r', 'IN_PROGRESS')).subWorkflowId!;
      const leafId = (await api().waitForTask(middleId, 'm', 'IN_PROGRESS')).subWorkflowId!;
      await api().complete(await api().pollOne(t), {}, { status: 'FAILED', extra: { reasonForIncompletion: 'leaf broke' } });
      await api().waitForStatus(rootId, 'FAILED');
      expect((await api().workflow(middleId)).status).toBe('FAILED');

      expect((await api().call('POST', `/api/workflow/${leafId}/retry`)).status).toBe(204);
      await api().waitForStatus(middleId, 'RUNNING');
      await api().waitForStatus(rootId, 'RUNNING');
      await api().complete(await api().pollOne(t), { fixed: true });
      await api().waitForStatus(leafId, 'COMPLETED');
      await api().waitForStatus(middleId, 'COMPLETED');
      const done = await api().waitForStatus(rootId, 'COMPLETED');
      expect(done.tasks[0]).toMatchObject({ referenceTaskName: 'r', status: 'COMPLETED', outputData: expect.objectContaining({ fixed: true }) });
    });
  });

  test('a failed permissive task in a fork: the sibling branch goes on, and the JOIN fails the workflow once it is done', async () => {
    const t = api().uniq('perm');
    await api().call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 0 }]);
    const name = api().uniq('permwf');
    await api().register({
      name,
      tasks: [
        {
          name: 'f',
          taskReferenceName: 'f',
          type: 'FORK_JOIN',
          forkTasks: [[{ name: t, taskReferenceName: 'p', permissive: true }], [{ name: t, taskReferenceName: 'q' }]],
        },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['p', 'q'] },
      ],
    });
    const id = await api().start(name);
    const first = await api().pollOne(t);
    const second = await api().pollOne(t);
    const [p, q] = first.referenceTaskName === 'p' ? [first, second] : [second, first];
    await api().complete(p, {}, { status: 'FAILED', extra: { reasonForIncompletion: 'soft failure' } });
    expect((await api().workflow(id)).status).toBe('RUNNING');
    await api().complete(q, { ok: true });
    const wf = await api().waitForStatus(id, 'FAILED');
    expect(wf.tasks.find((x) => x.referenceTaskName === 'q')).toMatchObject({ status: 'COMPLETED' });
    expect(wf.tasks.find((x) => x.referenceTaskName === 'j')).toMatchObject({ status: 'FAILED', reasonForIncompletion: 'soft failure' });
  });
}
