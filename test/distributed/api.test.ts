import { openDatabase, SqliteExecutionStore } from '../../src/store/sqlite';
import { describeInterface } from '../api/interface-suite';
import { apiClient, type TaskView } from '../support/api-client';
import { eventually } from '../support/baton';
import { uniqueName } from '../support/names';
import { COMPLETION_TOPIC, PUBSUB, startCluster, type TestCluster } from './cluster';

// The interface suite (test/api/interface-suite.ts) against two replicas of the distributed profile (Dapr sidecar double, real
// Redis, one shared SQLite file), every request going to the next replica in turn; then flows that
// only exist with several replicas.

let cluster: TestCluster;

describeInterface(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
  return { url: () => cluster.nextUrl(), stop: () => cluster.stop() };
});

describe('across two replicas', () => {
  // One client per replica, each sending every request to its own replica.
  const A = apiClient(() => cluster.replicas[0]!.url, { tasksPath: '/api/task' });
  const B = apiClient(() => cluster.replicas[1]!.url, { tasksPath: '/api/task' });

  test('both replicas host actors', async () => {
    const name = uniqueName('spread');
    await A.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
    const ids = await Promise.all(Array.from({ length: 24 }, () => A.start(name)));
    const ports = new Set(ids.map((id) => cluster.double.placementOf('WorkflowActor', id)));
    expect(ports).toEqual(new Set(cluster.replicas.map((r) => r.port)));
  });

  test('a workflow started through A completes through workers polling B', async () => {
    const name = uniqueName('ab');
    const t = uniqueName('abt');
    await A.call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 0 }]);
    await A.register({
      name,
      tasks: [
        { name: t, taskReferenceName: 'x' },
        { name: t, taskReferenceName: 'y' },
      ],
      outputParameters: { y: '${y.output.v}' },
    });
    const id = await A.start(name);
    for (const ref of ['x', 'y']) {
      const task = await B.pollOne(t);
      expect(task).toMatchObject({ workflowInstanceId: id, referenceTaskName: ref });
      await B.complete(task, { v: ref });
    }
    await A.waitForStatus(id, 'COMPLETED');
    expect((await A.workflow(id)).output).toEqual({ y: 'y' });
  });

  test('update-v2 through both replicas in turn runs every chain to the end, each next step handed over in the update', async () => {
    const name = uniqueName('v2ab');
    const t = uniqueName('v2abt');
    await A.register({ name, tasks: ['a', 'b', 'c'].map((ref) => ({ name: t, taskReferenceName: ref })), outputParameters: { c: '${c.output.ref}' } });
    const ids = await Promise.all(Array.from({ length: 6 }, () => A.start(name)));
    let task: TaskView | undefined = await A.pollOne(t);
    let sameWorkflow = 0;
    for (let n = 0; task; n++) {
      const done: TaskView = task;
      const r = await [A, B][n % 2]!.call('POST', '/api/task/update-v2', {
        workflowInstanceId: done.workflowInstanceId,
        taskId: done.taskId,
        status: 'COMPLETED',
        workerId: 'w',
        outputData: { ref: done.referenceTaskName },
      });
      expect([200, 204]).toContain(r.status);
      const next: TaskView | undefined = r.status === 200 ? r.body : undefined;
      if (next) expect(next).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w' });
      if (next?.workflowInstanceId === done.workflowInstanceId) sameWorkflow++;
      task = next;
    }
    for (const id of ids) expect((await A.waitForStatus(id, 'COMPLETED')).output).toEqual({ c: 'c' });
    expect(sameWorkflow).toBe(2 * ids.length); // b after a, c after b: never through the queue
  });

  test('a long poll on B returns when a start through A enqueues', async () => {
    const name = uniqueName('lpab');
    const t = uniqueName('lpabt');
    await A.register({ name, tasks: [{ name: t, taskReferenceName: 'x' }] });
    const waiting = B.call('GET', `/api/task/poll/batch/${t}?timeout=5000&count=1`);
    await new Promise((r) => setImmediate(r));
    const id = await A.start(name);
    const r = await waiting;
    expect(r.body).toHaveLength(1);
    expect(r.body[0].workflowInstanceId).toBe(id);
  });

  /** A started execution, then a commit to it by another writer: its activation's memory is now stale. */
  const startThenWriteElsewhere = async (tag: string) => {
    const name = uniqueName(tag);
    await A.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
    const id = await A.start(name); // the actor is active now, at this rev
    const db = openDatabase(cluster.dataDir);
    try {
      const store = new SqliteExecutionStore(db);
      const s = (await store.load(id))!;
      await store.commit({
        workflow: { ...s.workflow, variables: { writtenBy: 'other' } },
        upsertTasks: [],
        deleteTaskIds: [],
        outbox: s.outbox,
        expectedRev: s.rev,
      });
    } finally {
      db.close();
    }
    const hosting = cluster.double.placementOf('WorkflowActor', id) === cluster.replicas[0]!.port;
    return { id, host: hosting ? A : B, other: hosting ? B : A };
  };

  test('a write by another activation fences the actor: a retryable 503 through daprd, then the next call reloads and succeeds', async () => {
    const { id, host, other } = await startThenWriteElsewhere('fence');
    const fenced = await other.call('PUT', `/api/workflow/${id}/pause`);
    expect(fenced.status).toBe(503);
    expect(fenced.body).toMatchObject({ status: 503, retryable: true });
    expect((await host.call('PUT', `/api/workflow/${id}/pause`)).status).toBe(200);
    const w = await other.workflow(id);
    expect(w.status).toBe('PAUSED');
    expect(w.variables).toEqual({ writtenBy: 'other' });
  });

  test('on the replica that holds the stale activation the call runs after a check of the rev: dropped, reloaded, applied at once', async () => {
    const { id, host } = await startThenWriteElsewhere('fencein');
    expect((await host.call('PUT', `/api/workflow/${id}/pause`)).status).toBe(200);
    const w = await host.workflow(id);
    expect(w.status).toBe('PAUSED');
    expect(w.variables).toEqual({ writtenBy: 'other' });
  });

  describe('HUMAN tasks completed by a message on the completion topic', () => {
    const humanWf = async (): Promise<string> => {
      const name = uniqueName('hmsg');
      await A.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'approval', type: 'HUMAN' }], outputParameters: { by: '${approval.output.by}' } });
      return B.start(name);
    };

    test('by reference name', async () => {
      const id = await humanWf();
      expect(await cluster.publish(COMPLETION_TOPIC, { workflowId: id, taskRefName: 'approval', status: 'COMPLETED', output: { by: 'ana' } })).toBe(204);
      await A.waitForStatus(id, 'COMPLETED');
      const w = await B.workflow(id);
      expect(w.output).toEqual({ by: 'ana' });
      expect(w.tasks[0]).toMatchObject({ status: 'COMPLETED', outputData: { by: 'ana' } });
    });

    test('by task id, FAILED', async () => {
      const id = await humanWf();
      const taskId = (await A.workflow(id)).tasks[0].taskId;
      expect(await cluster.publish(COMPLETION_TOPIC, { workflowId: id, taskId, status: 'FAILED', output: { why: 'no' } })).toBe(204);
      await B.waitForStatus(id, 'FAILED');
      expect((await A.workflow(id)).tasks[0]).toMatchObject({ status: 'FAILED', outputData: { why: 'no' } });
    });

    test('a message for an unknown workflow is acknowledged, not redelivered forever', async () => {
      const seen = cluster.double.deliveryAttempts.length;
      const workflowId = '00000000-0000-0000-0000-00000000dead';
      expect(await cluster.publish(COMPLETION_TOPIC, { workflowId, taskRefName: 'approval', status: 'COMPLETED' })).toBe(204);
      const attempts = () => cluster.double.deliveryAttempts.slice(seen).filter((d) => d.topic === COMPLETION_TOPIC);
      await eventually(async () => attempts().some((d) => d.outcome === 'SUCCESS'));
      expect(attempts().map((d) => d.outcome)).toEqual(['SUCCESS']);
    });
  });

  test('search finds a workflow through either replica, with its final status', async () => {
    const name = uniqueName('srch');
    await B.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'approval', type: 'HUMAN' }] });
    const id = await A.start(name, {}, { correlationId: 'c-dist' });
    expect((await B.call('POST', `/api/queue/update/${id}/approval/COMPLETED`, { ok: true })).status).toBe(200);
    const query = `/api/workflow/search?query=${encodeURIComponent(`workflowId = '${id}' AND status = 'COMPLETED'`)}`;
    for (const replica of [A, B]) {
      const found = await eventually(async () => {
        const r = await replica.call('GET', query);
        return r.body.totalHits === 1 ? r.body.results[0] : undefined;
      });
      expect(found).toMatchObject({ workflowType: name, workflowId: id, status: 'COMPLETED', correlationId: 'c-dist' });
    }
  });

  test('a definition registered through one replica governs tasks on both at once', async () => {
    const name = uniqueName('defprop');
    const t = uniqueName('defpropt');
    // No retries: a replica with a stale cache would schedule with the ad hoc definition (3 retries) instead.
    await B.call('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 0, responseTimeoutSeconds: 60 }]);
    await B.register({ name, tasks: [{ name: t, taskReferenceName: 'x' }] });
    // Ids are random, so start through both replicas until executions live on both hosts.
    const ids: string[] = [];
    const placed = new Set<number | undefined>();
    while (placed.size < 2 && ids.length < 64) {
      const id = await (ids.length % 2 ? B : A).start(name);
      ids.push(id);
      placed.add(cluster.double.placementOf('WorkflowActor', id));
    }
    expect(placed.size).toBe(2);
    for (let i = 0; i < ids.length; i++) {
      const polled = await (i % 2 ? A : B).pollOne(t);
      await (i % 2 ? B : A).complete(polled, {}, { status: 'FAILED' });
    }
    for (const id of ids) {
      await A.waitForStatus(id, 'FAILED');
      expect((await B.workflow(id)).tasks).toHaveLength(1);
    }
  });
});

// Last: a third replica joins (placement moves actors), so nothing after this depends on the first two.
describe('event handlers on a Dapr topic', () => {
  test('a replica started after the handler was defined subscribes its topic; a message starts a workflow', async () => {
    const stamp = Date.now().toString(36);
    const name = `onorder_${stamp}`;
    const event = `dapr:${PUBSUB}:orders_${stamp}`;
    const a = apiClient(cluster.replicas[0]!);
    await a.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
    const handler = {
      name: `h_${stamp}`,
      event,
      active: true,
      actions: [{ action: 'start_workflow', start_workflow: { name, correlationId: '${orderId}', input: { orderId: '${orderId}' } } }],
    };
    expect((await a.call('POST', '/api/event', handler)).status).toBe(200);
    // daprd reads /dapr/subscribe once at its start: the topic is served from the next sidecar start on.
    const c = await cluster.addReplica('C');
    expect(await cluster.publish(`orders_${stamp}`, { orderId: 'o-17' })).toBe(204);
    const [id] = await eventually(async () => {
      const r = await apiClient(c).call('GET', `/api/workflow/running/${name}`);
      return r.body.length === 1 ? (r.body as string[]) : undefined;
    });
    const w = await a.workflow(id!);
    expect(w).toMatchObject({ correlationId: 'o-17', input: { orderId: 'o-17', 'conductor.event.name': event } });
  });
});
