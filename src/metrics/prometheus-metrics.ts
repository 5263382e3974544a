import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TaskStatus, WorkflowStatus } from '../model/statuses';
import { LabelValues } from './label-values';
import type { Metrics } from './ports';

// The one module that knows prom-client. Names follow Conductor's Monitors (workflow_start_success,
// workflow_failure, task_queue_wait, task_execution, task_queue_depth) in Prometheus style, under
// the `baton_` prefix; docs/operations.md "Metrics and traces" lists them all.

/** Seconds, for calls that take milliseconds (HTTP, store, index, actor turns). */
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds, for waits and executions that take from milliseconds to hours. */
const LONG_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 14400];

/**
 * Children of a labelled metric, cached by their label values in nested maps: the hot path then
 * records with no label object and no key string built per call.
 */
class Children<C> {
  private readonly root = new Map<string, unknown>();
  constructor(
    private readonly depth: number,
    private readonly make: (values: string[]) => C,
  ) {}

  get(a: string, b = '', c = ''): C {
    let level = this.root;
    if (this.depth > 1) level = Children.step(level, a);
    if (this.depth > 2) level = Children.step(level, b);
    const last = this.depth === 1 ? a : this.depth === 2 ? b : c;
    let child = level.get(last) as C | undefined;
    if (child === undefined) level.set(last, (child = this.make([a, b, c].slice(0, this.depth))));
    return child;
  }

  private static step(level: Map<string, unknown>, k: string): Map<string, unknown> {
    let next = level.get(k) as Map<string, unknown> | undefined;
    if (!next) level.set(k, (next = new Map()));
    return next;
  }
}

/** Distinct values of one name label (workflow, task type, queue, actor method) with a series of their own (BATON_METRICS_MAX_LABEL_VALUES). */
export const DEFAULT_MAX_LABEL_VALUES = 500;

type Observer = { observe(v: number): void };
type Incrementer = { inc(v?: number): void };

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly started: Children<Incrementer>;
  private readonly completed: Children<Incrementer>;
  private readonly failed: Children<Incrementer>;
  private readonly workflowSeconds: Children<Observer>;
  private readonly queueWait: Children<Observer>;
  private readonly taskExecution: Children<Observer>;
  private readonly http: Children<Observer>;
  private readonly activations: Children<Incrementer>;
  private readonly turns: Children<Observer>;
  private readonly store: Children<Observer>;
  private readonly index: Children<Observer>;
  private readonly outbox: Gauge;
  /** Entries per queue partition hosted here that hold any, summed by queue name at each scrape. */
  private readonly partitions = new Map<string, { queue: string; entries: number }>();
  private readonly workflowNames: LabelValues;
  private readonly taskTypes: LabelValues;
  private readonly queues: LabelValues;
  private readonly actorMethods: LabelValues;
  /** Where queues live outside this process (Redis): the whole cluster's depth by queue, read at each scrape. */
  private clusterDepths?: () => Promise<Map<string, number>>;
  private readonly statusText = new Map<number, string>();

  constructor(opts: { defaultMetrics?: boolean; maxLabelValues?: number } = {}) {
    const registers = [this.registry];
    const max = opts.maxLabelValues ?? DEFAULT_MAX_LABEL_VALUES;
    [this.workflowNames, this.taskTypes, this.queues, this.actorMethods] = [
      new LabelValues(max),
      new LabelValues(max),
      new LabelValues(max),
      new LabelValues(max),
    ];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    const counter = (name: string, help: string, labelNames: string[]) => new Counter({ name, help, labelNames, registers });
    const histogram = (name: string, help: string, labelNames: string[], buckets: number[]) => new Histogram({ name, help, labelNames, buckets, registers });
    const byValues = <M extends { labels(...v: string[]): C }, C>(m: M, depth: number) => new Children<C>(depth, (v) => m.labels(...v));

    this.started = byValues(counter('baton_workflow_start_success_total', 'Executions started, by workflow name', ['workflow_name']), 1);
    this.completed = byValues(counter('baton_workflow_completed_total', 'Executions that ended COMPLETED, by workflow name', ['workflow_name']), 1);
    this.failed = byValues(
      counter('baton_workflow_failure_total', 'Executions that ended FAILED, TIMED_OUT or TERMINATED, by workflow name and status', [
        'workflow_name',
        'status',
      ]),
      2,
    );
    this.workflowSeconds = byValues(
      histogram(
        'baton_workflow_execution_seconds',
        'Start to end of executions, by workflow name and terminal status',
        ['workflow_name', 'status'],
        LONG_BUCKETS,
      ),
      2,
    );
    this.queueWait = byValues(histogram('baton_task_queue_wait_seconds', 'Scheduled to polled, by task type', ['task_type'], LONG_BUCKETS), 1);
    this.taskExecution = byValues(
      histogram('baton_task_execution_seconds', 'Polled to ended by a worker update, by task type and status', ['task_type', 'status'], LONG_BUCKETS),
      2,
    );
    this.http = byValues(
      histogram('baton_http_request_duration_seconds', 'HTTP requests, by method, route template and status', ['method', 'route', 'status'], CALL_BUCKETS),
      3,
    );
    this.activations = byValues(counter('baton_actor_activations_total', 'Actor activations on this replica, by actor type', ['actor_type']), 1);
    this.turns = byValues(
      histogram('baton_actor_turn_duration_seconds', 'Actor turns (calls and reminders), by actor type and method', ['actor_type', 'method'], CALL_BUCKETS),
      2,
    );
    this.store = byValues(
      histogram('baton_store_operation_duration_seconds', 'Store calls, by store (execution, metadata) and operation', ['store', 'operation'], CALL_BUCKETS),
      2,
    );
    this.index = byValues(histogram('baton_index_operation_duration_seconds', 'Search index calls, by operation', ['operation'], CALL_BUCKETS), 1);
    this.outbox = new Gauge({ name: 'baton_outbox_backlog', help: 'Outbox effects owed by the executions active on this replica', registers });
    const partitions = this.partitions;
    const queues = this.queues;
    const clusterDepths = (): (() => Promise<Map<string, number>>) | undefined => this.clusterDepths;
    new Gauge({
      name: 'baton_task_queue_depth',
      help: 'Entries held by task queue partitions (pending and leased), by queue name; scope "replica": the partitions hosted on this replica (sum over replicas), "cluster": the whole queue, read from Redis (every replica reports it: take the max)',
      labelNames: ['queue', 'scope'],
      registers,
      async collect() {
        const read = clusterDepths();
        // QueueActors report their size after each turn (no store read here); Redis queues are read at the scrape, one pipelined round trip.
        const depths = read ? await read().catch(() => new Map<string, number>()) : new Map<string, number>();
        if (!read) for (const p of partitions.values()) depths.set(p.queue, (depths.get(p.queue) ?? 0) + p.entries);
        // A queue that held entries keeps its series (0 once empty); one only polled never gets one.
        const sums = new Map<string, number>();
        for (const q of queues.values()) sums.set(q, 0);
        for (const [queue, n] of depths) {
          const label = queues.of(queue, n > 0);
          if (n > 0 || sums.has(label)) sums.set(label, (sums.get(label) ?? 0) + n);
        }
        this.reset();
        for (const [queue, n] of sums) this.labels(queue, read ? 'cluster' : 'replica').set(n);
      },
    });
  }

  /** Queues kept outside the actor host: their depth is the whole cluster's, read through `read` at each scrape. */
  readClusterQueueDepths(read: () => Promise<Map<string, number>>): void {
    this.clusterDepths = read;
  }

  /** The exposition text and its content type, for GET /metrics. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  workflowStarted(workflowName: string): void {
    this.started.get(this.workflowNames.of(workflowName)).inc();
  }

  workflowEnded(name: string, status: WorkflowStatus, durationMs: number): void {
    const workflowName = this.workflowNames.of(name);
    if (status === 'COMPLETED') this.completed.get(workflowName).inc();
    else this.failed.get(workflowName, status).inc();
    this.workflowSeconds.get(workflowName, status).observe(Math.max(0, durationMs) / 1000);
  }

  taskPolled(taskType: string, waitMs: number): void {
    this.queueWait.get(this.taskTypes.of(taskType)).observe(Math.max(0, waitMs) / 1000);
  }

  taskEnded(taskType: string, status: TaskStatus, executionMs: number): void {
    this.taskExecution.get(this.taskTypes.of(taskType), status).observe(Math.max(0, executionMs) / 1000);
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    let code = this.statusText.get(status);
    if (code === undefined) this.statusText.set(status, (code = String(status)));
    this.http.get(method, route, code).observe(seconds);
  }

  actorActivated(actorType: string): void {
    this.activations.get(actorType).inc();
  }

  actorTurn(actorType: string, method: string, seconds: number): void {
    this.turns.get(actorType, this.actorMethods.of(method)).observe(seconds);
  }

  storeOperation(store: string, operation: string, seconds: number): void {
    this.store.get(store, operation).observe(seconds);
  }

  indexOperation(operation: string, seconds: number): void {
    this.index.get(operation).observe(seconds);
  }

  queueDepth(partitionId: string, queueName: string, entries: number): void {
    // An empty partition is forgotten: polls of any name activate one, and it must leave nothing behind.
    if (entries === 0) this.partitions.delete(partitionId);
    else this.partitions.set(partitionId, { queue: queueName, entries });
  }

  outboxChanged(delta: number): void {
    if (delta !== 0) this.outbox.inc(delta);
  }
}
