import { parseArgs } from '../../../bench/options';
import { callCategory, countsBetween } from '../../../bench/processes/counting-proxy';
import { buildLatest, cpuMsPerTask, perTask, RunRecord } from '../../../bench/report/results';
import { parseCommandStats, storeDelta, sumSamples } from '../../../bench/processes/store-counters';
import { judgeScaleOut, scaleOutPoints } from '../../../bench/report/scale-out';
import { formatTable, renderReport } from '../../../bench/report/table';
import type { LatencySummary } from '../../../bench/stats/percentiles';

const lat = (p99: number): LatencySummary => ({ count: 100, min: 1, mean: 2, p50: 2, p90: 3, p99, p999: p99, max: p99 });
const server = { cpuCores: 1, rssMbPeak: 120 };

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    mode: 'full',
    startedAt: '2025-01-01T00:00:00.000Z',
    durationSeconds: 300,
    machine: { cores: 2, nodeVersion: 'v20.20.2', cpuModel: 'test cpu', totalMemoryMb: 4096, platform: 'linux-x64', loadAverageAtStart: [0.5, 0.4, 0.3] },
    settings: { latencyLoad: 0.7 },
    ceiling: { ok: true, result: { requestsPerSecond: 10_000, latencyMs: lat(9), errors: 0, loadProcessCpuCores: 1 }, server },
    bullmq: {
      ok: true,
      result: {
        jobsPerSecond: 4000,
        chainsPerSecond: 1333,
        jobLatencyMs: lat(30),
        concurrencyPerQueue: 16,
        inFlightChains: 96,
        loadProcessCpuCores: 1,
        errors: 0,
      },
      server,
    },
    simple3: {
      ok: true,
      server,
      result: {
        shape: 'simple3',
        useUpdateV2: false,
        inFlightWorkflows: 96,
        tasksPerSecond: 3000,
        workflowsPerSecond: 1000,
        startsPerSecond: 1000,
        httpRequestsPerSecond: 6000,
        pollsPerSecond: 2000,
        tasksPerPoll: 1.5,
        startLatencyMs: lat(10),
        updateLatencyMs: lat(12),
        scheduleToPollMs: lat(20),
        loadProcessCpuCores: 0.8,
        totalWorkflowsCompleted: 100_000,
        soakSeconds: 90,
        errors: { count: 0, samples: [] },
        verification: { checked: 20, completed: 20, statuses: { COMPLETED: 20 }, indexCompletedTotal: 100_000 },
      },
    },
    updateV2: (() => {
      const base = {
        shape: 'simple3' as const,
        inFlightWorkflows: 96,
        workflowsPerSecond: 600,
        startsPerSecond: 600,
        httpRequestsPerSecond: 2400,
        pollsPerSecond: 30,
        tasksPerPoll: 60,
      };
      const rest = {
        startLatencyMs: lat(10),
        updateLatencyMs: lat(12),
        scheduleToPollMs: lat(20),
        loadProcessCpuCores: 0.8,
        totalWorkflowsCompleted: 5000,
        soakSeconds: 0,
      };
      return {
        ok: true,
        server,
        result: {
          ...base,
          ...rest,
          useUpdateV2: true,
          tasksPerSecond: 1800,
          errors: { count: 0, samples: [] },
          verification: { checked: 20, completed: 20, statuses: { COMPLETED: 20 }, indexCompletedTotal: 5000 },
        },
      };
    })(),
    latency: {
      ok: true,
      server,
      result: {
        shape: 'simple3',
        targetStartsPerSecond: 700,
        achievedStartsPerSecond: 700,
        tasksPerSecond: 2100,
        workflowsPerSecond: 700,
        startsSkipped: 0,
        backlogAtWindowStart: 40,
        pollsPerSecond: 900,
        tasksPerPoll: 2.33,
        startLatencyMs: lat(8),
        startServiceTimeMs: lat(7),
        updateLatencyMs: lat(25),
        scheduleToPollMs: lat(40),
        loadProcessCpuCores: 0.6,
        errors: { count: 0, samples: [] },
      },
    },
    inFlight: [{ ok: false, error: 'boom\nstack' }],
    skipped: [{ phase: 'distributed', reason: 'CASSANDRA_CONTACT_POINTS not set' }],
    rawCeiling: { ok: true, result: { requestsPerSecond: 30_000, latencyMs: lat(3), errors: 0, loadProcessCpuCores: 1 }, server },
    daprWorkflow: {
      ok: true,
      server,
      result: {
        workflowsPerSecond: 250,
        activitiesPerSecond: 750,
        inFlightWorkflows: 96,
        startLatencyMs: lat(5),
        completionLatencyMs: lat(80),
        loadProcessCpuCores: 1,
        failedWorkflows: 0,
        errors: { count: 0, samples: [] },
      },
    },
    memory: {
      rssMbPeak: 150,
      soakTarget: 100_000,
      soakCompleted: 100_000,
      rssMbAfterSoak: 130,
      samples: [],
      trend: { firstMb: 100, maxMb: 140, baselineMb: 125, finalMb: 130, growthMb: 5, slopeMbPer10k: 0.4, flat: true, rule: 'rule' },
    },
    ...overrides,
  };
}

describe('buildLatest', () => {
  it('puts the headline figures under the keys the issue names, with ratios', () => {
    const j = buildLatest(record());
    expect(j).toMatchObject({
      tasksPerSecond: 3000,
      workflowsPerSecond: 1000,
      httpCeilingRps: 10_000,
      ratioToHttpCeiling: 0.6,
      taskRatioToHttpCeiling: 0.3,
      bullmqTasksPerSecond: 4000,
      ratioToBullmq: 0.75,
      updateV2TasksPerSecond: 1800,
      ratioToBullmqUpdateV2: 0.45,
      startP99Ms: 8,
      updateP99Ms: 25,
      scheduleToPollP99Ms: 40,
      rssMbPeak: 150,
      rssMbAfter100k: 130,
      embeddedCpuMsPerTask: 0.33,
      machine: { cores: 2, nodeVersion: 'v20.20.2' },
    });
  });

  it('puts the peers under the keys issue 13 names, null for a peer that was not run', () => {
    const j = buildLatest(record());
    expect(j).toMatchObject({
      rawHttpCeilingRps: 30_000,
      ratioToRawHttp: 0.2,
      updateV2ToClassic: 0.6,
      daprWorkflowsPerSecond: 250,
      ratioToDaprWorkflow: 4,
      conductorTasksPerSecond: null,
      ratioToConductor: null,
      conductorUpdateP99Ms: null,
      conductorScheduleToPollP99Ms: null,
      distributedTasksPerSecond: null,
      sidecarCallsPerTask: null,
      distributedReplicaCpuMsPerTask: null,
      cassandraLwtPerTask: null,
      redisCommandsPerTask: null,
      esDocumentsPerTask: null,
    });
  });

  it('judges every target and reports a miss as a miss', () => {
    const byName = Object.fromEntries(buildLatest(record()).targets.map((t) => [t.name, t.met]));
    expect(byName).toEqual({
      ratioToHttpCeiling: true,
      'tasksPerSecond (3-task)': true,
      'ratioToConductor (tasks/s)': null,
      'ratioToDaprWorkflow (workflows/s)': false,
      'ratioToRawHttp (HTTP requests)': false,
      ratioToBullmq: true,
      'ratioToBullmq, update-v2 workers': false,
      updateV2ToClassic: false,
      'updateP99Ms at 70%': false,
      'scheduleToPollP99Ms at 70%': true,
      'startP99Ms at 70%': true,
      'sidecarCallsPerTask (distributed)': null,
      'sidecarCallsPerTask (distributed, update-v2 workers)': null,
      distributedReplicaCpuMsPerTask: null,
      distributedSidecarCpuMsPerTask: null,
      redisCommandsPerTask: null,
      cassandraRequestsPerTask: null,
      cassandraLwtPerTask: null,
      esDocumentsPerTask: null,
      'distributedTasksPerSecond vs the start commit': null,
      'distributed CPU per task outside the databases vs Dapr Workflow per activity': null,
      'ratioToConductorPg (tasks/s)': null,
      'distributed CPU per task vs Conductor on PostgreSQL': null,
      'RSS flat after 100k workflows': true,
    });
  });

  it('keeps every key, as null, when phases failed or were not run (quick mode)', () => {
    const j = buildLatest(
      record({
        mode: 'quick',
        simple3: { ok: false, error: 'server down' },
        updateV2: undefined,
        latency: undefined,
        memory: { rssMbPeak: null, soakTarget: 0, soakCompleted: null, rssMbAfterSoak: null, samples: [], trend: null },
      }),
    );
    expect(j.tasksPerSecond).toBeNull();
    expect(j.ratioToHttpCeiling).toBeNull();
    expect(j.ratioToBullmq).toBeNull();
    expect(j.updateP99Ms).toBeNull();
    expect(j.rssMbAfter100k).toBeNull();
    expect(j.httpCeilingRps).toBe(10_000);
    expect(j.ratioToBullmqUpdateV2).toBeNull();
    expect(j.targets.filter((t) => !/Dapr|RawHttp/.test(t.name)).every((t) => t.met === null)).toBe(true);
  });

  it('puts Restate and Conductor on PostgreSQL under their keys, with ratios and server CPU per workflow or task', () => {
    const base = record();
    const conductorOn = (persistence: 'sqlite' | 'postgres', tasksPerSecond: number, cpuCores: number) => {
      if (!base.simple3?.ok) throw new Error('fixture');
      return {
        ok: true as const,
        server: { cpuCores, rssMbPeak: 900 },
        result: {
          version: '3.32.3',
          persistence,
          startSeconds: 60,
          throughput: { ...base.simple3.result, tasksPerSecond, workflowsPerSecond: tasksPerSecond / 3 },
          throughputCpuCores: cpuCores,
          latency: null,
          latencyCpuCores: null,
        },
      };
    };
    const j = buildLatest(
      record({
        conductor: conductorOn('sqlite', 500, 1.5),
        conductorPg: conductorOn('postgres', 400, 1.6),
        restate: {
          ok: true,
          server: { cpuCores: 0.8, rssMbPeak: null },
          result: {
            version: '1.7.12',
            workflowsPerSecond: 200,
            stepsPerSecond: 600,
            inFlightWorkflows: 96,
            completionLatencyMs: lat(400),
            loadProcessCpuCores: 0.1,
            errors: { count: 0, samples: [] },
          },
        },
      }),
    );
    expect(j).toMatchObject({
      conductorTasksPerSecond: 500,
      conductorCpuMsPerTask: 3,
      conductorPgTasksPerSecond: 400,
      ratioToConductorPg: 7.5,
      conductorPgCpuMsPerTask: 4,
      restateWorkflowsPerSecond: 200,
      ratioToRestate: 5,
      restateP99Ms: 400,
      restateCpuMsPerWorkflow: 4,
      // Baton: 1 core at 1,000 workflows/s
      embeddedCpuMsPerWorkflow: 1,
      cpuPerWorkflowToRestate: 0.25,
    });
    const text = renderReport(j);
    expect(text).toMatch(/Restate 1\.7\.12: 3-step durable handler\s+200\.0 workflows\/s\s+2\.0 \/ 400\.0\s+0\.80/);
    expect(text).toMatch(/Conductor OSS 3\.32\.3 on PostgreSQL: 3-task SIMPLE, same workers\s+400 tasks\/s/);
    expect(text).toMatch(/tasks\/s vs Conductor OSS on PostgreSQL \(3-task SIMPLE\)\s+3,000\s+400\s+7\.500/);
    expect(text).toMatch(/workflows\/s vs Restate \(3 steps\)\s+1,000\.0\s+200\.0\s+5\.000/);
    expect(text).toMatch(/server CPU ms per workflow vs Restate \(lower is better\)\s+1\.00\s+4\.00\s+0\.250/);
    expect(text).toContain('4.00 CPU ms per task (JVM + PostgreSQL; SQLite: 3.00)');
  });

  it('keeps the Restate and Conductor-on-PostgreSQL keys, as null, when they were skipped or failed', () => {
    const j = buildLatest(
      record({ restate: { ok: false, error: 'restate-server exited' }, skipped: [{ phase: 'conductor-pg', reason: 'POSTGRES_BIN_DIR not recorded' }] }),
    );
    expect(j).toMatchObject({
      restateWorkflowsPerSecond: null,
      ratioToRestate: null,
      restateCpuMsPerWorkflow: null,
      cpuPerWorkflowToRestate: null,
      conductorPgTasksPerSecond: null,
      ratioToConductorPg: null,
      conductorPgCpuMsPerTask: null,
    });
    const text = renderReport(j);
    expect(text).toContain('FAILED: restate-server exited');
    expect(text).toContain('skipped: POSTGRES_BIN_DIR not recorded');
  });

  it('adds the two independent servers up and compares them with one server and the peers', () => {
    const one = record().simple3;
    if (!one?.ok) throw new Error('fixture');
    const at = (tasksPerSecond: number, httpRequestsPerSecond: number) => ({
      throughput: { ...one.result, tasksPerSecond, httpRequestsPerSecond },
      cpuCores: 0.8,
    });
    const j = buildLatest(record({ twoServers: { ok: true, server, result: { alone: at(2800, 4100), servers: [at(2000, 3000), at(2200, 3600)] } } }));
    expect(j).toMatchObject({ twoServersTasksPerSecond: 4200, twoServersToOne: 1.5, twoServersRatioToRawHttp: 0.22, twoServersRatioToBullmq: 1.05 });
    const text = renderReport(j);
    expect(text).toMatch(/server 1 alone\s+2,800\s+4,100/);
    expect(text).toMatch(/together 4,200 tasks\/s, 1\.50× server 1 alone; vs bare node:http 0\.220, vs BullMQ 1\.050/);
    expect(buildLatest(record()).twoServersTasksPerSecond).toBeNull();
  });

  it('does not report RSS after 100k when the soak stopped short', () => {
    const base = record();
    const j = buildLatest(record({ memory: { ...base.memory, soakCompleted: 60_000 } }));
    expect(j.rssMbAfter100k).toBeNull();
  });
});

describe('formatTable and renderReport', () => {
  it('aligns columns and right-aligns numeric ones', () => {
    const t = formatTable(
      ['name', 'rate'],
      [
        ['a', '1,500'],
        ['longer', '20'],
      ],
    );
    expect(t.split('\n')).toEqual(['name     rate', '------  -----', 'a       1,500', 'longer     20']);
  });

  it('renders figures, failures and target verdicts', () => {
    const text = renderReport(buildLatest(record()));
    expect(text).toContain('30,000 req/s');
    expect(text).toContain('250.0 workflows/s');
    expect(text).toContain('skipped: CASSANDRA_CONTACT_POINTS not set');
    expect(text).toMatch(/3-task SIMPLE .* 1\.00 \/ 0\.80\s+3,000\s+0\s+20\/20/);
    expect(text).toMatch(/workflows\/s vs Dapr Workflow \(3 steps\)\s+1,000.0\s+250.0\s+4.000\s+>= 5\s+MISSED/);
    expect(text).toContain('2.0 / 9.0');
    expect(text).toContain('10,000 req/s');
    expect(text).toContain('FAILED: boom');
    expect(text).not.toContain('stack');
    expect(text).toMatch(/updateP99Ms at 70%\s+<= 20 ms\s+25\s+MISSED/);
  });
});

describe('perTask and the counting proxy', () => {
  it('divides the counted calls by the tasks, per direction, leaving health probes out of the figures', () => {
    const a = { total: 4, byCategory: { 'PUT actors/WorkflowActor/method/update': 4 } };
    const b = { total: 62, byCategory: { 'PUT actors/WorkflowActor/method/update': 44, 'POST publish/baton-pubsub': 18 } };
    const d = countsBetween(a, b);
    expect(d).toEqual({ total: 58, byCategory: { 'PUT actors/WorkflowActor/method/update': 40, 'POST publish/baton-pubsub': 18 } });
    const inbound = { total: 22, byCategory: { 'PUT actors/WorkflowActor/method/update': 20, 'GET healthz/': 2 } };
    const p = perTask(
      [d],
      [inbound],
      {
        cassandraRequests: 100,
        esIndexed: 40,
        esBulkRequests: 4,
        esQueries: 0,
        redisCommands: 300,
        redisByCommand: { evalsha: 60, hget: 100, publish: 0.05 },
        cassandraByTable: { 'write executions': 60, 'read executions': 40 },
        esIndexedByIndex: { tasks: 30, workflows: 10 },
        cassandraLwt: 30,
      },
      20,
    );
    expect(p.sidecarCallsPerTask).toBe(2.9);
    expect(p.sidecarDeliveriesPerTask).toBe(1);
    expect(p.sidecarHousekeepingCalls).toBe(2);
    expect(p.sidecarCallsPerTaskByCategory).toEqual({
      'app→daprd PUT actors/WorkflowActor/method/update': 2,
      'daprd→app PUT actors/WorkflowActor/method/update': 1,
      'app→daprd POST publish/baton-pubsub': 0.9,
    });
    expect(p.storeCallsPerTask).toEqual({ cassandra: 5, cassandraLwt: 1.5, esBulkRequests: 0.2, esIndexedDocs: 2, esQueries: 0, redisCommands: 15 });
    // most first; a command below 0.01 per task is left out
    expect(Object.entries(p.redisCommandsPerTaskByName)).toEqual([
      ['hget', 5],
      ['evalsha', 3],
    ]);
    expect(p.cassandraRequestsPerTaskByTable).toEqual({ 'write executions': 3, 'read executions': 2 });
    expect(p.esDocumentsPerTaskByIndex).toEqual({ tasks: 1.5, workflows: 0.5 });
  });

  it('reads Redis commandstats and sums Prometheus samples by label', () => {
    expect(parseCommandStats('# Commandstats\r\ncmdstat_evalsha:calls=12,usec=3\r\ncmdstat_hget:calls=40,usec=1\r\n')).toEqual({ evalsha: 12, hget: 40 });
    const text = [
      '# HELP baton_store_operation_duration_seconds Store calls',
      'baton_store_operation_duration_seconds_bucket{le="0.1",store="execution",operation="commit"} 7',
      'baton_store_operation_duration_seconds_count{store="execution",operation="commit"} 9',
      'baton_store_operation_duration_seconds_count{store="execution",operation="load"} 4',
      'baton_store_operation_duration_seconds_count{store="metadata",operation="commit"} 100',
    ].join('\n');
    expect(sumSamples(text, 'baton_store_operation_duration_seconds_count', { store: 'execution', operation: 'commit' })).toBe(9);
    expect(sumSamples(text, 'baton_store_operation_duration_seconds_count', { store: 'execution' })).toBe(13);
    const delta = storeDelta(
      {
        cassandraRequests: 1,
        cassandraByTable: { 'write executions': 1 },
        esIndexed: 1,
        esIndexedByIndex: { workflows: 1 },
        esBulkRequests: 1,
        esQueries: 1,
        redisCommands: 10,
        redisByCommand: { get: 2 },
        cassandraLwt: 3,
        errors: [],
      },
      {
        cassandraRequests: 4,
        cassandraByTable: { 'write executions': 3, 'read executions': 1 },
        esIndexedByIndex: { workflows: 1 },
        esIndexed: 1,
        esBulkRequests: 1,
        esQueries: 1,
        redisCommands: 30,
        redisByCommand: { get: 5, set: 1 },
        cassandraLwt: null,
        errors: [],
      },
    );
    expect(delta.redisByCommand).toEqual({ get: 3, set: 1 });
    expect(delta.cassandraByTable).toEqual({ 'write executions': 2, 'read executions': 1 });
    expect(delta.esIndexedByIndex).toEqual({});
    expect(delta.cassandraLwt).toBeNull();
  });

  it('turns cores over a window into CPU milliseconds per task', () => {
    expect(cpuMsPerTask(0.5, 100)).toBe(5);
    expect(cpuMsPerTask(null, 100)).toBeNull();
    expect(cpuMsPerTask(0.5, 0)).toBeNull();
  });

  it('gives null figures when nothing was counted or no task completed', () => {
    const p = perTask([], [], null, 0);
    expect(p.sidecarCallsPerTask).toBeNull();
    expect(p.storeCallsPerTask.cassandra).toBeNull();
  });

  it('names a sidecar call by what it does, not by its ids', () => {
    expect(callCategory('PUT', '/v1.0/actors/WorkflowActor/wf-123/method/update?x=1')).toBe('PUT actors/WorkflowActor/method/update');
    expect(callCategory('PUT', '/actors/WorkflowActor/wf-9/method/remind/timeout')).toBe('PUT actors/WorkflowActor/method/remind/timeout');
    expect(callCategory('POST', '/v1.0/actors/QueueActor/q1/state')).toBe('POST actors/QueueActor/state');
    expect(callCategory('DELETE', '/actors/WorkflowActor/wf-1')).toBe('DELETE actors/WorkflowActor/deactivate');
    expect(callCategory('POST', '/v1.0/publish/baton-pubsub/events')).toBe('POST publish/baton-pubsub');
    expect(callCategory('GET', '/healthz')).toBe('GET healthz/');
    expect(callCategory('GET', '/dapr/config')).toBe('GET dapr/config');
  });
});

describe('parseArgs', () => {
  it('gives quick mode short windows, small levels and no soak', () => {
    const o = parseArgs(['--quick']);
    expect(o.mode).toBe('quick');
    expect(o.soakWorkflows).toBe(0);
    expect(Math.max(...o.inFlightLevels)).toBeLessThan(100_000);
    expect(o.phases).toContain('update-v2'); // the JS SDK 4 path: every run reports it
    expect(o.phases).toContain('dapr-workflow');
    expect(o.phases).not.toContain('conductor'); // a JVM start takes minutes here
    expect(o.phases).toContain('restate');
    expect(o.skippedPhases.map((s) => s.phase)).toEqual(['conductor', 'conductor-pg', 'distributed', 'scale-out']);
  });

  it('runs a slow-start peer in quick mode when --only names it', () => {
    const o = parseArgs(['--quick', '--only', 'conductor']);
    expect(o.phases).toEqual(['conductor']);
    expect(o.skippedPhases).toEqual([]);
  });

  it('gives full mode the 1k/10k/100k levels and the 100k soak', () => {
    const o = parseArgs([]);
    expect(o.inFlightLevels).toEqual([1000, 10_000, 100_000]);
    expect(o.soakWorkflows).toBe(100_000);
    expect(o.phases).toEqual(expect.arrayContaining(['conductor', 'conductor-pg', 'dapr-workflow', 'restate', 'distributed']));
  });

  it('accepts --name value and --name=value', () => {
    const o = parseArgs(['--concurrency', '8', '--levels=10,20', '--only', 'ceiling,simple3', '--no-build']);
    expect(o.worker.concurrencyPerType).toBe(8);
    expect(o.inFlightLevels).toEqual([10, 20]);
    expect(o.phases).toEqual(['ceiling', 'simple3']);
    expect(o.build).toBe(false);
  });

  it('rejects unknown options, phases and bad numbers', () => {
    expect(() => parseArgs(['--fast'])).toThrow(/unknown option/);
    expect(() => parseArgs(['--only', 'nope'])).toThrow(/unknown phase/);
    expect(() => parseArgs(['--concurrency', 'x'])).toThrow(/number/);
    expect(() => parseArgs(['--levels', '0'])).toThrow(/positive/);
  });
});

describe('targets of the distributed profile, each missed one with its measured reason', () => {
  const distributed = (): RunRecord['distributed'] => {
    const s3 = record().simple3;
    if (!s3?.ok) throw new Error('fixture');
    const counts = perTask(
      [
        {
          total: 240,
          byCategory: {
            'PUT actors/WorkflowActor/method/update': 100,
            'PUT actors/WorkflowActor/method/claim': 100,
            'POST actors/WorkflowActor/method/start': 40,
          },
        },
      ],
      [{ total: 100, byCategory: { 'PUT actors/WorkflowActor/method/update': 100 } }],
      {
        cassandraRequests: 600,
        cassandraByTable: { 'write executions': 300, 'read executions': 200, 'write task_index': 100 },
        esIndexed: 300,
        esIndexedByIndex: { tasks: 200, workflows: 100 },
        esBulkRequests: 10,
        esQueries: 0,
        redisCommands: 1800,
        redisByCommand: { evalsha: 700, hget: 500, xadd: 300, hset: 300 },
        cassandraLwt: 110,
      },
      100,
    );
    return {
      ok: true,
      server,
      result: {
        replicas: 2,
        throughput: { ...s3.result, tasksPerSecond: 100 },
        cpuCoresBatonAndDapr: 0.9,
        cpuCoresByGroup: { batonReplicas: 0.7, daprdPlacementSchedulerRedis: 0.2, cassandra: 0.5, elasticsearch: 0.2 },
        cpuMsPerTaskByGroup: { batonReplicas: 7, daprdPlacementSchedulerRedis: 2, cassandra: 5, elasticsearch: 2 },
        sidecarCpuMsPerTaskByProcess: { 'daprd-a': 0.8, 'daprd-b': 0.7, redis: 0.4, scheduler: 0.1 },
        tasksInWindow: 100,
        storeErrors: [],
        latency: null,
        updateV2: null,
        ...counts,
      },
    };
  };
  const byName = (j: ReturnType<typeof buildLatest>) => Object.fromEntries(j.targets.map((t) => [t.name, t]));

  it('judges every row of the issue and gives each miss the counts that explain it', () => {
    const j = buildLatest(
      record({
        distributed: distributed(),
        profiles: {
          'distributed replica a': [
            { name: '(idle)', where: '', selfMs: 300, selfPercent: 30 },
            { name: 'writeGeneric', where: 'node:internal/stream_base_commons:1', selfMs: 100, selfPercent: 10 },
            { name: '(garbage collector)', where: '', selfMs: 80, selfPercent: 8 },
          ],
        },
        baseline: { file: 'base.json', distributedTasksPerSecond: 80 },
      }),
    );
    const t = byName(j);
    const withModules = byName(
      buildLatest(
        record({
          distributed: distributed(),
          profileModules: {
            'distributed replica a': [
              { module: '(idle)', selfMs: 500, selfPercent: 50 },
              { module: 'cassandra-driver', selfMs: 70, selfPercent: 7 },
              { module: 'undici', selfMs: 50, selfPercent: 5 },
            ],
          },
        }),
      ),
    );
    expect(withModules.distributedReplicaCpuMsPerTask?.reason).toBe(
      'distributed replica a self time by module: cassandra-driver 7.0%, undici 5.0%; idle 50.0%',
    );
    expect(j.daprWorkflowCpuMsPerActivity).toBe(2.67); // (1 core of daprd and company + 1 of the app) over 750 activities/s
    expect(j.distributedCpuToDaprWorkflow).toBe(3.371); // (7 + 2) / 2.67
    expect(t['sidecarCallsPerTask (distributed)']).toMatchObject({ actual: 2.4, met: false });
    expect(t['sidecarCallsPerTask (distributed)']?.reason).toBe(
      'app→daprd per task: PUT actors/WorkflowActor/method/update 1.00, PUT actors/WorkflowActor/method/claim 1.00, POST actors/WorkflowActor/method/start 0.40',
    );
    expect(t.redisCommandsPerTask).toMatchObject({ actual: 18, met: false, reason: 'per task by command: evalsha 7.00, hget 5.00, xadd 3.00, hset 3.00' });
    expect(t.cassandraRequestsPerTask?.reason).toBe('per task by statement kind and table: write executions 3.00, read executions 2.00, write task_index 1.00');
    expect(t.cassandraLwtPerTask).toMatchObject({ actual: 1.1, met: false, reason: '1.10 execution-store commits (one conditional batch each) per task' });
    expect(t.esDocumentsPerTask?.reason).toBe('per task by index: tasks 2.00, workflows 1.00; 0.10 bulk requests');
    expect(t.distributedReplicaCpuMsPerTask?.reason).toBe(
      'distributed replica a self time: writeGeneric (node:internal/stream_base_commons) 10.0%, (garbage collector) 8.0%; idle 30.0%',
    );
    expect(t.distributedSidecarCpuMsPerTask?.reason).toMatch(
      /^ms per task by process: daprd-a 0\.80, daprd-b 0\.70, redis 0\.40, scheduler 0\.10; per task 2\.40 round trips/,
    );
    expect(t['distributedTasksPerSecond vs the start commit']).toMatchObject({
      actual: 1.25,
      met: false,
      reason: '100 tasks/s here vs 80 at the start commit',
    });
    expect(t['distributed CPU per task outside the databases vs Dapr Workflow per activity']?.reason).toContain('vs Dapr Workflow 2.67 ms per activity');
    // a met target carries no reason
    expect(t['ratioToHttpCeiling']).toMatchObject({ met: true });
    expect(t['ratioToHttpCeiling']?.reason).toBeUndefined();
    const text = renderReport(j);
    expect(text).toMatch(/redisCommandsPerTask\s+<= 6\s+18\s+MISSED\s+per task by command: evalsha 7\.00/);
  });

  it('says why the start-commit comparison was not judged, and compares the CPU per task with Conductor on PostgreSQL', () => {
    const base = record();
    if (!base.simple3?.ok) throw new Error('fixture');
    const j = buildLatest(
      record({
        distributed: distributed(),
        conductorPg: {
          ok: true,
          server: { cpuCores: 1, rssMbPeak: null },
          result: {
            version: '3.32.3',
            persistence: 'postgres',
            startSeconds: 60,
            throughput: { ...base.simple3.result, tasksPerSecond: 50 },
            throughputCpuCores: 1,
            latency: null,
            latencyCpuCores: null,
          },
        },
      }),
    );
    const t = byName(j);
    expect(t['distributedTasksPerSecond vs the start commit']).toMatchObject({ met: null, reason: expect.stringContaining('no --baseline') });
    expect(j.distributedCpuMsPerTask).toBe(16);
    expect(t['distributed CPU per task vs Conductor on PostgreSQL']).toMatchObject({ actual: 0.8, met: true });
    expect(t['ratioToConductorPg (tasks/s)']).toMatchObject({ actual: 60, met: true });
  });

  it('puts the scale-out windows under scaleOut per replica count and prints where it stops', () => {
    const points = scaleOutPoints([
      { replicas: 1, tasksPerSecond: 60, cpuCoresByGroup: { batonReplicas: 0.4 }, loadProcessCpuCores: 0.1, errors: 0 },
      { replicas: 2, tasksPerSecond: 70, cpuCoresByGroup: { batonReplicas: 0.5 }, loadProcessCpuCores: 0.1, errors: 0 },
    ]);
    const verdict = judgeScaleOut(points, 2);
    const j = buildLatest(record({ scaleOut: { ok: true, server, result: { points, verdict, machineCores: 2 } } }));
    expect(j.scaleOut).toEqual({
      '1': { tasksPerSecond: 60, tasksPerReplicaCpuSecond: 150, replicaCpuMsPerTask: 6.67 },
      '2': { tasksPerSecond: 70, tasksPerReplicaCpuSecond: 140, replicaCpuMsPerTask: 7.14 },
    });
    expect(j.scaleOutLimit).toMatch(/^stops at 2 replicas/);
    const text = renderReport(j);
    expect(text).toMatch(/\n2\s+70\s+1\.17\s+140\s+7\.14\s+0\.50/);
    expect(text).toContain(j.scaleOutLimit as string);
    expect(buildLatest(record()).scaleOut).toBeNull();
  });

  it('reads the start commit from --baseline', () => {
    expect(parseArgs(['--only', 'distributed,scale-out', '--baseline', 'base.json'])).toMatchObject({
      phases: ['distributed', 'scale-out'],
      baseline: 'base.json',
    });
    expect(() => parseArgs(['--baseline'])).toThrow(/--baseline needs/);
  });
});
