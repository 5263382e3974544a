import { PrometheusMetrics } from '../../../src/metrics/prometheus-metrics';
import { timedCalls } from '../../../src/metrics/timed-calls';
import { noMetrics, type Metrics } from '../../../src/metrics/ports';
import { observedActor } from '../../../src/telemetry/observed-actors';
import { parseExposition, sampleValue } from '../../support/prometheus-text';

const read = async (m: PrometheusMetrics) => parseExposition((await m.exposition()).text);

describe('PrometheusMetrics', () => {
  test('workflow ends split into completed and failure by status, each with its duration', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    m.workflowStarted('order');
    m.workflowStarted('order');
    m.workflowEnded('order', 'COMPLETED', 1500);
    m.workflowEnded('order', 'TERMINATED', 10);
    m.workflowEnded('order', 'TIMED_OUT', 10);
    const s = await read(m);
    expect(sampleValue(s, 'baton_workflow_start_success_total', { workflow_name: 'order' })).toBe(2);
    expect(sampleValue(s, 'baton_workflow_completed_total', { workflow_name: 'order' })).toBe(1);
    expect(sampleValue(s, 'baton_workflow_failure_total', { workflow_name: 'order', status: 'TERMINATED' })).toBe(1);
    expect(sampleValue(s, 'baton_workflow_failure_total', { workflow_name: 'order', status: 'TIMED_OUT' })).toBe(1);
    expect(sampleValue(s, 'baton_workflow_execution_seconds_sum', { workflow_name: 'order', status: 'COMPLETED' })).toBe(1.5);
    expect(sampleValue(s, 'baton_workflow_execution_seconds_bucket', { workflow_name: 'order', status: 'COMPLETED', le: '1' })).toBe(0);
    expect(sampleValue(s, 'baton_workflow_execution_seconds_bucket', { workflow_name: 'order', status: 'COMPLETED', le: '5' })).toBe(1);
  });

  test('the same labels record into one series (children are cached, not re-made)', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    for (let i = 0; i < 5; i++) m.httpRequest('POST', '/api/tasks', 200, 0.002);
    m.httpRequest('POST', '/api/tasks', 400, 0.001);
    m.httpRequest('GET', '/api/tasks', 200, 0.001);
    const s = await read(m);
    expect(sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'POST', route: '/api/tasks', status: '200' })).toBe(5);
    expect(sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'POST', route: '/api/tasks', status: '400' })).toBe(1);
    expect(sampleValue(s, 'baton_http_request_duration_seconds_count', { method: 'GET', route: '/api/tasks', status: '200' })).toBe(1);
  });

  test('queue depth sums the partitions of a queue at scrape time; a partition that left reports 0', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    m.queueDepth('q~0', 'q', 3);
    m.queueDepth('q~1', 'q', 4);
    m.queueDepth('r~0', 'r', 1);
    expect(sampleValue(await read(m), 'baton_task_queue_depth', { queue: 'q' })).toBe(7);
    m.queueDepth('q~1', 'q', 0);
    m.queueDepth('q~0', 'q', 2);
    const s = await read(m);
    expect(sampleValue(s, 'baton_task_queue_depth', { queue: 'q' })).toBe(2);
    expect(sampleValue(s, 'baton_task_queue_depth', { queue: 'r' })).toBe(1);
  });

  test('past maxLabelValues, workflow names, task types and actor methods are counted under "other"', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false, maxLabelValues: 2 });
    for (const name of ['a', 'b', 'c', 'd']) {
      m.workflowStarted(name);
      m.workflowEnded(name, 'FAILED', 10);
      m.taskPolled(`t_${name}`, 5);
      m.taskEnded(`t_${name}`, 'COMPLETED', 5);
      m.actorTurn('WorkflowActor', `m_${name}`, 0.001);
    }
    m.workflowStarted('a');
    const s = await read(m);
    expect(s.filter((x) => x.name === 'baton_workflow_start_success_total').map((x) => [x.labels.workflow_name, x.value])).toEqual([
      ['a', 2],
      ['b', 1],
      ['other', 2],
    ]);
    expect(sampleValue(s, 'baton_workflow_failure_total', { workflow_name: 'other', status: 'FAILED' })).toBe(2);
    expect(s.filter((x) => x.name === 'baton_task_queue_wait_seconds_count').map((x) => [x.labels.task_type, x.value])).toEqual([
      ['t_a', 1],
      ['t_b', 1],
      ['other', 2],
    ]);
    expect(sampleValue(s, 'baton_task_execution_seconds_count', { task_type: 'other', status: 'COMPLETED' })).toBe(2);
    expect(sampleValue(s, 'baton_actor_turn_duration_seconds_count', { actor_type: 'WorkflowActor', method: 'other' })).toBe(2);
  });

  test('a queue gets a series once it holds entries (kept at 0 after); one only polled gets none; past the cap they sum under "other"', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false, maxLabelValues: 2 });
    m.queueDepth('polled~0', 'polled', 0);
    m.queueDepth('a~0', 'a', 1);
    m.queueDepth('b~0', 'b', 2);
    m.queueDepth('c~0', 'c', 3);
    m.queueDepth('d~0', 'd', 4);
    let s = await read(m);
    expect(s.filter((x) => x.name === 'baton_task_queue_depth').map((x) => [x.labels.queue, x.value])).toEqual([
      ['a', 1],
      ['b', 2],
      ['other', 7],
    ]);
    for (const q of ['a', 'b', 'c', 'd']) m.queueDepth(`${q}~0`, q, 0);
    s = await read(m);
    expect(s.filter((x) => x.name === 'baton_task_queue_depth').map((x) => [x.labels.queue, x.value])).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
  });

  test('queues kept in Redis report the whole queue, read at scrape time, as scope cluster', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    let depth = 5;
    m.readClusterQueueDepths(async () => new Map([['q', depth]]));
    expect(sampleValue(await read(m), 'baton_task_queue_depth', { queue: 'q', scope: 'cluster' })).toBe(5);
    depth = 2;
    expect(sampleValue(await read(m), 'baton_task_queue_depth', { queue: 'q', scope: 'cluster' })).toBe(2);
  });

  test('the outbox backlog moves by deltas; task, actor, store and index series carry their labels', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    m.outboxChanged(3);
    m.outboxChanged(-1);
    m.taskPolled('t', 250);
    m.taskEnded('t', 'FAILED', 2000);
    m.actorActivated('WorkflowActor');
    m.actorTurn('WorkflowActor', 'update', 0.003);
    m.storeOperation('execution', 'commit', 0.004);
    m.indexOperation('indexTasks', 0.01);
    const s = await read(m);
    expect(sampleValue(s, 'baton_outbox_backlog')).toBe(2);
    expect(sampleValue(s, 'baton_task_queue_wait_seconds_sum', { task_type: 't' })).toBe(0.25);
    expect(sampleValue(s, 'baton_task_execution_seconds_sum', { task_type: 't', status: 'FAILED' })).toBe(2);
    expect(sampleValue(s, 'baton_actor_activations_total', { actor_type: 'WorkflowActor' })).toBe(1);
    expect(sampleValue(s, 'baton_actor_turn_duration_seconds_count', { actor_type: 'WorkflowActor', method: 'update' })).toBe(1);
    expect(sampleValue(s, 'baton_store_operation_duration_seconds_count', { store: 'execution', operation: 'commit' })).toBe(1);
    expect(sampleValue(s, 'baton_index_operation_duration_seconds_count', { operation: 'indexTasks' })).toBe(1);
  });

  test('default process metrics are on unless turned off; two registries do not collide', async () => {
    const a = new PrometheusMetrics();
    const b = new PrometheusMetrics();
    expect((await a.exposition()).text).toContain('process_cpu_user_seconds_total');
    expect((await b.exposition()).contentType).toContain('text/plain');
    expect((await new PrometheusMetrics({ defaultMetrics: false }).exposition()).text).not.toContain('process_cpu_user_seconds_total');
  });
});

describe('timedCalls', () => {
  const recorder = () => {
    const seen: string[] = [];
    return { seen, record: (op: string, seconds: number) => void seen.push(`${op}:${seconds >= 0}`) };
  };

  test('times promise-answering methods by name, failures too, and passes the rest through untouched', async () => {
    class Store {
      private rows = ['a'];
      async load(i: number) {
        return this.rows[i];
      }
      async fail(): Promise<void> {
        throw new Error('boom');
      }
      size() {
        return this.rows.length;
      }
      async *ids() {
        yield* this.rows;
      }
    }
    const r = recorder();
    const s = timedCalls(new Store(), r.record);
    expect(await s.load(0)).toBe('a');
    await expect(s.fail()).rejects.toThrow('boom');
    expect(s.size()).toBe(1);
    const ids: string[] = [];
    for await (const id of s.ids()) ids.push(id);
    expect(ids).toEqual(['a']);
    expect(r.seen).toEqual(['load:true', 'fail:true']);
    expect(s.load).toBe(s.load); // one wrapper per method
  });
});

describe('observedActor', () => {
  test('counts activations and times turns by method; reminders under one label', async () => {
    const calls: string[] = [];
    const m: Metrics = {
      ...noMetrics,
      actorActivated: (t) => void calls.push(`activated ${t}`),
      actorTurn: (t, method) => void calls.push(`turn ${t}.${method}`),
    };
    const factory = observedActor('Thing', () => ({ invoke: async (method) => method, onReminder: async () => undefined }), m);
    const actor = factory({ type: 'Thing', id: 'x', setReminder: async () => undefined });
    await actor.onActivate!();
    expect(await actor.invoke('poke', undefined)).toBe('poke');
    await actor.onReminder('deadline-of-some-id');
    expect(calls).toEqual(['activated Thing', 'turn Thing.poke', 'turn Thing.reminder']);
  });
});
