/** The run as a readable text report for stdout (pure). */
import type { LatencySummary } from '../stats/percentiles';
import type { ConductorFigures, LatestJson, Outcome, Target } from './results';
import type { ScaleOutPoint } from './scale-out';

/** Columns padded to their widest cell; numbers right-aligned. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,/ ×%]*$/.test(r[i] ?? '')));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (numeric[i] && i > 0 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = (n: number | null | undefined, digits = 0): string =>
  n == null ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const pair = (l: LatencySummary | null | undefined): string => (l ? `${fmt(l.p50, 1)} / ${fmt(l.p99, 1)}` : '–');

const failed = (o: Outcome<unknown> | undefined): string | null => (o && !o.ok ? (o.error.split('\n')[0] ?? 'failed') : null);

/** A Conductor run's line at 70% of its maximum, or why it has none. */
function conductorLatencyLines(c: Pick<ConductorFigures, 'latency' | 'latencyError'>): string[] {
  const l = c.latency;
  if (l)
    return [
      `at ${fmt(l.targetStartsPerSecond, 1)} starts/s (70% of its max), achieved ${fmt(l.achievedStartsPerSecond, 1)}/s, errors ${l.errors.count}: start p99 ${fmt(l.startLatencyMs?.p99, 1)} ms, update p99 ${fmt(l.updateLatencyMs?.p99, 1)} ms, schedule-to-poll p99 ${fmt(l.scheduleToPollMs?.p99, 1)} ms`,
    ];
  return c.latencyError ? [`latency at 70%: FAILED: ${c.latencyError.split('\n')[0]}`] : [];
}

export function renderReport(j: LatestJson): string {
  const d = j.details;
  const out: string[] = [];
  const m = j.machine;
  out.push(
    `Baton benchmark (${j.mode}) — ${m.cores} cores (${m.cpuModel}), Node ${m.nodeVersion}, load average at start ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')}`,
  );
  out.push(`Server, load process and references all share this machine. Run took ${fmt(d.durationSeconds)} s.`);
  out.push('');

  out.push('Reference points');
  const refRows: string[][] = [];
  if (d.ceiling) {
    const c = d.ceiling.ok ? d.ceiling.result : null;
    refRows.push([
      'HTTP ceiling: express 5, trivial JSON POST',
      c ? `${fmt(c.requestsPerSecond)} req/s` : `FAILED: ${failed(d.ceiling)}`,
      c ? pair(c.latencyMs) : '',
      cpu(d.ceiling),
    ]);
  }
  if (d.rawCeiling) {
    const c = d.rawCeiling.ok ? d.rawCeiling.result : null;
    refRows.push([
      'HTTP ceiling: bare node:http, trivial JSON POST',
      c ? `${fmt(c.requestsPerSecond)} req/s` : `FAILED: ${failed(d.rawCeiling)}`,
      c ? pair(c.latencyMs) : '',
      cpu(d.rawCeiling),
    ]);
  }
  if (d.bullmq) {
    const b = d.bullmq.ok ? d.bullmq.result : null;
    refRows.push([
      'BullMQ: 3-job chains, Redis AOF everysec',
      b ? `${fmt(b.jobsPerSecond)} jobs/s` : `FAILED: ${failed(d.bullmq)}`,
      b ? pair(b.jobLatencyMs) : '',
      cpu(d.bullmq),
    ]);
  }
  if (d.conductor) {
    const c = d.conductor.ok ? d.conductor.result : null;
    refRows.push([
      `Conductor OSS ${c?.version ?? ''}: 3-task SIMPLE, same workers`.replace('  ', ' '),
      c ? `${fmt(c.throughput.tasksPerSecond)} tasks/s` : `FAILED: ${failed(d.conductor)}`,
      c ? pair(c.throughput.updateLatencyMs) : '',
      cpu(d.conductor),
    ]);
  }
  if (d.conductorPg) {
    const c = d.conductorPg.ok ? d.conductorPg.result : null;
    refRows.push([
      `Conductor OSS ${c?.version ?? ''} on PostgreSQL: 3-task SIMPLE, same workers`.replace('  ', ' '),
      c ? `${fmt(c.throughput.tasksPerSecond)} tasks/s` : `FAILED: ${failed(d.conductorPg)}`,
      c ? pair(c.throughput.updateLatencyMs) : '',
      cpu(d.conductorPg),
    ]);
  }
  if (d.daprWorkflow) {
    const w = d.daprWorkflow.ok ? d.daprWorkflow.result : null;
    refRows.push([
      'Dapr Workflow: 3-activity chain, real daprd',
      w ? `${fmt(w.workflowsPerSecond, 1)} workflows/s` : `FAILED: ${failed(d.daprWorkflow)}`,
      w ? pair(w.completionLatencyMs) : '',
      cpu(d.daprWorkflow),
    ]);
  }
  if (d.restate) {
    const r = d.restate.ok ? d.restate.result : null;
    refRows.push([
      `Restate ${r?.version ?? ''}: 3-step durable handler`.replace('  ', ' '),
      r ? `${fmt(r.workflowsPerSecond, 1)} workflows/s` : `FAILED: ${failed(d.restate)}`,
      r ? pair(r.completionLatencyMs) : '',
      cpu(d.restate),
    ]);
  }
  for (const s of d.skipped ?? []) refRows.push([s.phase, `skipped: ${s.reason}`, '', '']);
  out.push(formatTable(['reference', 'rate', 'latency p50 / p99 ms', 'server CPU cores'], refRows));
  out.push(
    '(latency: express/node:http/BullMQ per request or job; Conductor per task update; Dapr Workflow schedule to completion; Restate invocation to answer. Server CPU: Conductor on PostgreSQL counts the JVM and PostgreSQL, Restate restate-server and its service process)',
  );
  out.push('');

  out.push('Throughput, closed loop at maximum rate (steady window after warm-up)');
  const tRows: string[][] = [];
  for (const [label, o] of [
    ['3-task SIMPLE', d.simple3],
    ['13-step + sub-workflow', d.steps13],
    ['3-task, update-v2', d.updateV2],
  ] as const) {
    if (!o) continue;
    if (!o.ok) {
      tRows.push([label, `FAILED: ${failed(o)}`]);
      continue;
    }
    const r = o.result;
    tRows.push([
      label,
      fmt(r.tasksPerSecond),
      fmt(r.workflowsPerSecond, 1),
      fmt(r.httpRequestsPerSecond),
      fmt(r.tasksPerPoll, 2),
      pair(r.startLatencyMs),
      pair(r.updateLatencyMs),
      pair(r.scheduleToPollMs),
      `${fmt(o.server.cpuCores, 2)} / ${fmt(r.loadProcessCpuCores, 2)}`,
      // on a shared machine the server's share of the cores swings between windows; per CPU-second it does not
      fmt(o.server.cpuCores ? r.tasksPerSecond / o.server.cpuCores : null),
      r.errors.count ? String(r.errors.count) : '0',
      `${r.verification.completed}/${r.verification.checked}`,
    ]);
  }
  out.push(
    formatTable(
      [
        'workflow',
        'tasks/s',
        'workflows/s',
        'HTTP req/s',
        'tasks/poll',
        'start p50/p99',
        'update p50/p99',
        'sched→poll p50/p99',
        'CPU server/load',
        'tasks per server CPU-s',
        'errors',
        'verified',
      ],
      tRows,
    ),
  );
  out.push('');

  if (d.latency) {
    out.push(`Latency at ${Math.round(((d.settings.latencyLoad as number) ?? 0.7) * 100)}% of the maximum (open loop, 3-task workflow; ms)`);
    if (!d.latency.ok) out.push(`FAILED: ${failed(d.latency)}`);
    else {
      const l = d.latency.result;
      out.push(
        `target ${fmt(l.targetStartsPerSecond, 1)} starts/s, achieved ${fmt(l.achievedStartsPerSecond, 1)}/s, ${fmt(l.tasksPerSecond)} tasks/s, ${fmt(l.tasksPerPoll, 2)} tasks per poll, ${l.startsSkipped} starts skipped, ${fmt(l.backlogAtWindowStart)} in flight when the window opened, errors ${l.errors.count}`,
      );
      const row = (name: string, s: LatencySummary | null): string[] => [
        name,
        fmt(s?.p50, 2),
        fmt(s?.p90, 2),
        fmt(s?.p99, 2),
        fmt(s?.p999, 2),
        fmt(s?.max, 2),
        fmt(s?.count),
      ];
      out.push(
        formatTable(
          ['measure', 'p50', 'p90', 'p99', 'p99.9', 'max', 'samples'],
          [
            row('workflow start (from scheduled instant)', l.startLatencyMs),
            row('workflow start (service time)', l.startServiceTimeMs),
            row('task update POST /api/tasks', l.updateLatencyMs),
            row('schedule-to-poll (same wall clock)', l.scheduleToPollMs),
          ],
        ),
      );
    }
    out.push('');
  }

  if (d.inFlight.length > 0) {
    out.push('Workflows in flight: pre-started with no worker polling, then drained (3-task workflow)');
    const rows = d.inFlight.map((o) => {
      if (!o.ok) return ['?', `FAILED: ${failed(o)}`];
      const r = o.result;
      return [
        fmt(r.level),
        `${fmt(r.startsPerSecond)} /s`,
        pair(r.startLatencyMs),
        `${fmt(r.drained)} in ${fmt(r.drainSeconds, 1)} s`,
        fmt(r.tasksPerSecond),
        pair(r.updateLatencyMs),
        pair(r.scheduleToPollMs),
        `${fmt(r.rssMbWithBacklog)} / ${fmt(r.rssMbAfterDrain)}`,
        String(r.errors.count),
      ];
    });
    out.push(
      formatTable(
        ['in flight', 'starts', 'start p50/p99', 'drained', 'tasks/s', 'update p50/p99', 'sched→poll p50/p99', 'RSS MB backlog/after', 'errors'],
        rows,
      ),
    );
    out.push('');
  }

  if (d.twoServers) {
    out.push('Two independent embedded Batons at once (own data directories and load processes; the ceiling of sharding here, not a Baton figure)');
    if (!d.twoServers.ok) out.push(`FAILED: ${failed(d.twoServers)}`);
    else {
      const { alone, servers } = d.twoServers.result;
      const rows = [alone, ...servers].map((x, i) => {
        const t = x.throughput;
        return [
          i === 0 ? 'server 1 alone' : `server ${i}`,
          fmt(t.tasksPerSecond),
          fmt(t.httpRequestsPerSecond),
          pair(t.updateLatencyMs),
          fmt(x.cpuCores, 2),
          fmt(t.loadProcessCpuCores, 2),
          String(t.errors.count),
          `${t.verification.completed}/${t.verification.checked}`,
        ];
      });
      out.push(formatTable(['', 'tasks/s', 'HTTP req/s', 'update p50/p99', 'CPU server', 'CPU load', 'errors', 'verified'], rows));
      out.push(
        `together ${fmt(j.twoServersTasksPerSecond)} tasks/s, ${fmt(j.twoServersToOne, 2)}× server 1 alone; vs bare node:http ${fmt(j.twoServersRatioToRawHttp, 3)}, vs BullMQ ${fmt(j.twoServersRatioToBullmq, 3)}`,
      );
    }
    out.push('');
  }

  const cond = d.conductor?.ok ? d.conductor.result : null;
  if (cond) {
    out.push(
      `Conductor OSS ${cond.version} (started in ${fmt(cond.startSeconds, 1)} s; ${fmt(cond.throughput.tasksPerSecond)} tasks/s at max, ${fmt(cond.throughput.tasksPerPoll, 2)} tasks per poll, errors ${cond.throughput.errors.count}, verified ${cond.throughput.verification.completed}/${cond.throughput.verification.checked})`,
    );
    out.push(...conductorLatencyLines(cond), '');
  }

  const condPg = d.conductorPg?.ok ? d.conductorPg.result : null;
  if (condPg) {
    out.push(
      `Conductor OSS ${condPg.version} on PostgreSQL (started in ${fmt(condPg.startSeconds, 1)} s; ${fmt(condPg.throughput.tasksPerSecond)} tasks/s at max, ${fmt(j.conductorPgCpuMsPerTask, 2)} CPU ms per task (JVM + PostgreSQL; SQLite: ${fmt(j.conductorCpuMsPerTask, 2)}), errors ${condPg.throughput.errors.count}, verified ${condPg.throughput.verification.completed}/${condPg.throughput.verification.checked})`,
    );
    out.push(...conductorLatencyLines(condPg), '');
  }

  const rst = d.restate?.ok ? d.restate.result : null;
  if (rst) {
    out.push(
      `Restate ${rst.version}: ${fmt(rst.workflowsPerSecond, 1)} workflows/s (${fmt(rst.stepsPerSecond)} steps/s) with ${fmt(rst.inFlightWorkflows)} in flight, invocation p50/p99 ${pair(rst.completionLatencyMs)} ms, ${fmt(j.restateCpuMsPerWorkflow, 2)} CPU ms per workflow (restate-server + service; Baton ${fmt(j.embeddedCpuMsPerWorkflow, 2)}), load process ${fmt(rst.loadProcessCpuCores, 2)} cores, errors ${rst.errors.count}`,
    );
    out.push('');
  }

  if (d.distributed) {
    out.push('Distributed profile: two Baton replicas, each beside its own daprd; Cassandra, Elasticsearch, Redis');
    if (!d.distributed.ok) out.push(`FAILED: ${failed(d.distributed)}`);
    else {
      const x = d.distributed.result;
      const t = x.throughput;
      out.push(
        `${fmt(t.tasksPerSecond)} tasks/s, ${fmt(t.workflowsPerSecond, 1)} workflows/s at max (update p50/p99 ${pair(t.updateLatencyMs)} ms, errors ${t.errors.count}, verified ${t.verification.completed}/${t.verification.checked}); CPU of replicas + Dapr processes ${fmt(x.cpuCoresBatonAndDapr, 2)} cores`,
      );
      if (x.latency) {
        const l = x.latency;
        out.push(
          `at 70% (${fmt(l.targetStartsPerSecond, 1)} starts/s): start p99 ${fmt(l.startLatencyMs?.p99, 1)} ms, update p99 ${fmt(l.updateLatencyMs?.p99, 1)} ms, schedule-to-poll p99 ${fmt(l.scheduleToPollMs?.p99, 1)} ms`,
        );
      } else if (x.latencyError) out.push(`latency at 70%: FAILED: ${x.latencyError.split('\n')[0]}`);
      out.push(
        `CPU cores in the window: ${Object.entries(x.cpuCoresByGroup)
          .map(([k, v]) => `${k} ${fmt(v, 2)}`)
          .join(', ')}`,
      );
      const s = x.storeCallsPerTask;
      out.push(
        `per task completion (counted over ${fmt(x.tasksInWindow)} tasks): ${fmt(x.sidecarCallsPerTask, 2)} sidecar round trips (app → daprd) and ${fmt(x.sidecarDeliveriesPerTask, 2)} calls from daprd into the app, ${fmt(s.cassandra, 2)} Cassandra requests, ${fmt(s.esBulkRequests, 2)} ES bulk requests (${fmt(s.esIndexedDocs, 2)} docs), ${fmt(s.esQueries, 2)} ES queries, ${fmt(s.redisCommands, 2)} Redis commands`,
      );
      out.push(
        `CPU ms per task: ${Object.entries(x.cpuMsPerTaskByGroup)
          .map(([k, v]) => `${k} ${fmt(v, 2)}`)
          .join(', ')}; ${fmt(s.cassandraLwt, 2)} of the Cassandra requests lightweight transactions`,
      );
      out.push(
        formatTable(
          ['sidecar call (direction, kind)', 'per task'],
          Object.entries(x.sidecarCallsPerTaskByCategory).map(([k, v]) => [k, fmt(v, 3)]),
        ),
      );
      out.push(
        formatTable(
          ['Redis command (a script and what it runs)', 'per task'],
          Object.entries(x.redisCommandsPerTaskByName).map(([k, v]) => [k, fmt(v, 2)]),
        ),
      );
      if (x.storeErrors.length) out.push(`store counters: ${x.storeErrors.join('; ')}`);
      if (x.updateV2) {
        const v = x.updateV2;
        out.push(
          `update-v2 workers (the official JS SDK's way), a window of their own: ${fmt(v.throughput.tasksPerSecond)} tasks/s; per task completion (counted over ${fmt(v.tasksInWindow)} tasks): ${fmt(v.sidecarCallsPerTask, 2)} sidecar round trips and ${fmt(v.sidecarDeliveriesPerTask, 2)} calls from daprd into the app, ${fmt(v.storeCallsPerTask.cassandra, 2)} Cassandra requests (${fmt(v.storeCallsPerTask.cassandraLwt, 2)} LWT), ${fmt(v.storeCallsPerTask.esIndexedDocs, 2)} ES docs, ${fmt(v.storeCallsPerTask.redisCommands, 2)} Redis commands; CPU ms per task: replicas ${fmt(v.cpuMsPerTaskByGroup.batonReplicas, 2)}, daprd and company ${fmt(v.cpuMsPerTaskByGroup.daprdPlacementSchedulerRedis, 2)}`,
        );
        out.push(
          formatTable(
            ['sidecar call (direction, kind), update-v2', 'per task'],
            Object.entries(v.sidecarCallsPerTaskByCategory).map(([k, val]) => [k, fmt(val, 3)]),
          ),
        );
      } else if (x.updateV2Error) out.push(`update-v2 window: FAILED: ${x.updateV2Error.split('\n')[0]}`);
    }
    out.push('');
  }

  if (d.scaleOut) {
    out.push('Scale-out: the distributed cluster with 1, 2 and 3 replicas (each beside its own daprd) on the same engines, a closed-loop window each');
    if (!d.scaleOut.ok) out.push(`FAILED: ${failed(d.scaleOut)}`);
    else {
      const so = d.scaleOut.result;
      const group = (p: ScaleOutPoint, k: string): string => fmt(p.cpuCoresByGroup[k], 2);
      out.push(
        formatTable(
          [
            'replicas',
            'tasks/s',
            '× one',
            'tasks per replica CPU-s',
            'replica CPU ms/task',
            'CPU replicas',
            'CPU daprd+Redis',
            'CPU Cassandra',
            'CPU ES',
            'CPU load',
            'machine busy',
            'sidecar/task',
            'Cassandra/task',
            'Redis/task',
            'errors',
          ],
          so.points.map((p) => [
            String(p.replicas),
            fmt(p.tasksPerSecond),
            fmt(p.speedup, 2),
            fmt(p.tasksPerReplicaCpuSecond),
            fmt(p.replicaCpuMsPerTask, 2),
            group(p, 'batonReplicas'),
            group(p, 'daprdPlacementSchedulerRedis'),
            group(p, 'cassandra'),
            group(p, 'elasticsearch'),
            fmt(p.loadProcessCpuCores, 2),
            fmt(p.machineBusyCores, 2),
            fmt(p.sidecarCallsPerTask, 2),
            fmt(p.cassandraRequestsPerTask, 2),
            fmt(p.redisCommandsPerTask, 2),
            String(p.errors),
          ]),
        ),
      );
      if (so.verdict) out.push(so.verdict.reason);
      if (so.error) out.push(`ended early: ${so.error.split('\n')[0]}`);
    }
    out.push('');
  }

  out.push('Memory (Baton, /proc/<pid>/status)');
  const mem = d.memory;
  out.push(
    `peak RSS ${fmt(mem.rssMbPeak)} MB; ` +
      (mem.soakTarget > 0 ? `RSS after ${fmt(mem.soakCompleted)} completed workflows ${fmt(mem.rssMbAfterSoak)} MB` : 'no 100k soak in quick mode'),
  );
  if (mem.trend) {
    const t = mem.trend;
    out.push(`whole soak: first reading ${fmt(t.firstMb)} MB, highest ${fmt(t.maxMb)} MB`);
    out.push(
      `second half: ${fmt(t.baselineMb)} MB -> ${fmt(t.finalMb)} MB (${t.growthMb >= 0 ? '+' : ''}${t.growthMb} MB, trend ${t.slopeMbPer10k} MB per 10k workflows): ${t.flat ? 'flat' : 'GROWING'}`,
    );
  }
  if (mem.heapFloor) {
    const h = mem.heapFloor;
    out.push(
      `used JS heap, lowest reading per half of the second half (what stays alive): ${fmt(h.firstHalfMb)} MB -> ${fmt(h.secondHalfMb)} MB (${h.growthMb >= 0 ? '+' : ''}${h.growthMb} MB): ${h.flat ? 'flat' : 'GROWING'}`,
    );
  }
  out.push('');

  if (d.profiles) {
    out.push('CPU profiles of Baton (node --cpu-prof; profiling slows every figure above)');
    for (const [phase, hot] of Object.entries(d.profiles)) {
      out.push(`${phase}:`);
      out.push(
        formatTable(
          ['self %', 'self ms', 'function', 'where'],
          hot.map((h) => [fmt(h.selfPercent, 1), fmt(h.selfMs), h.name, h.where]),
        ),
      );
      const mods = d.profileModules?.[phase];
      if (mods) out.push(`by module: ${mods.map((m) => `${m.module} ${fmt(m.selfPercent, 1)}%`).join(', ')}`);
    }
    out.push('');
  }

  out.push('Peers and ratios (one run, one machine)');
  out.push(formatTable(['comparison', 'Baton', 'peer', 'ratio', 'target', 'result'], peerRows(j)));
  out.push('');

  out.push('Summary');
  out.push(
    formatTable(
      ['key', 'value'],
      [
        ['rawHttpCeilingRps', fmt(j.rawHttpCeilingRps)],
        ['ratioToRawHttp', fmt(j.ratioToRawHttp, 3)],
        ['conductorTasksPerSecond', fmt(j.conductorTasksPerSecond)],
        ['ratioToConductor', fmt(j.ratioToConductor, 3)],
        [
          'conductorStartP99Ms / UpdateP99Ms / ScheduleToPollP99Ms',
          `${fmt(j.conductorStartP99Ms, 2)} / ${fmt(j.conductorUpdateP99Ms, 2)} / ${fmt(j.conductorScheduleToPollP99Ms, 2)}`,
        ],
        ['daprWorkflowsPerSecond', fmt(j.daprWorkflowsPerSecond, 1)],
        ['ratioToDaprWorkflow', fmt(j.ratioToDaprWorkflow, 3)],
        ['conductorPgTasksPerSecond', fmt(j.conductorPgTasksPerSecond)],
        ['ratioToConductorPg', fmt(j.ratioToConductorPg, 3)],
        ['conductorCpuMsPerTask / conductorPgCpuMsPerTask', `${fmt(j.conductorCpuMsPerTask, 2)} / ${fmt(j.conductorPgCpuMsPerTask, 2)}`],
        ['restateWorkflowsPerSecond', fmt(j.restateWorkflowsPerSecond, 1)],
        ['ratioToRestate', fmt(j.ratioToRestate, 3)],
        ['restateP99Ms', fmt(j.restateP99Ms, 2)],
        ['restateCpuMsPerWorkflow / embeddedCpuMsPerWorkflow', `${fmt(j.restateCpuMsPerWorkflow, 2)} / ${fmt(j.embeddedCpuMsPerWorkflow, 2)}`],
        ['updateV2ToClassic', fmt(j.updateV2ToClassic, 3)],
        ['distributedTasksPerSecond', fmt(j.distributedTasksPerSecond)],
        ['sidecarCallsPerTask (app → daprd round trips)', fmt(j.sidecarCallsPerTask, 2)],
        ['sidecarDeliveriesPerTask (daprd → app)', fmt(j.sidecarDeliveriesPerTask, 2)],
        [
          'distributedTasksPerSecondUpdateV2 / sidecarCallsPerTaskUpdateV2',
          `${fmt(j.distributedTasksPerSecondUpdateV2)} / ${fmt(j.sidecarCallsPerTaskUpdateV2, 2)}`,
        ],
        ['cassandraRequestsPerTask / cassandraLwtPerTask', `${fmt(j.cassandraRequestsPerTask, 2)} / ${fmt(j.cassandraLwtPerTask, 2)}`],
        ['redisCommandsPerTask / esDocumentsPerTask', `${fmt(j.redisCommandsPerTask, 2)} / ${fmt(j.esDocumentsPerTask, 2)}`],
        [
          'distributedReplicaCpuMsPerTask / distributedSidecarCpuMsPerTask',
          `${fmt(j.distributedReplicaCpuMsPerTask, 2)} / ${fmt(j.distributedSidecarCpuMsPerTask, 2)}`,
        ],
        ['embeddedCpuMsPerTask', fmt(j.embeddedCpuMsPerTask, 2)],
        ['daprWorkflowCpuMsPerActivity', fmt(j.daprWorkflowCpuMsPerActivity, 2)],
        [
          'scaleOut tasks/s (tasks per replica CPU-s) at 1 / 2 / 3 replicas',
          j.scaleOut
            ? Object.entries(j.scaleOut)
                .map(([, v]) => `${fmt(v.tasksPerSecond)} (${fmt(v.tasksPerReplicaCpuSecond)})`)
                .join(' / ')
            : '–',
        ],
        [
          'distributed start / update / schedule-to-poll p99 ms',
          `${fmt(j.distributedStartP99Ms, 2)} / ${fmt(j.distributedUpdateP99Ms, 2)} / ${fmt(j.distributedScheduleToPollP99Ms, 2)}`,
        ],
        ['tasksPerSecond', fmt(j.tasksPerSecond)],
        ['workflowsPerSecond', fmt(j.workflowsPerSecond, 1)],
        ['httpCeilingRps', fmt(j.httpCeilingRps)],
        ['ratioToHttpCeiling (HTTP requests)', fmt(j.ratioToHttpCeiling, 3)],
        ['taskRatioToHttpCeiling (tasks)', fmt(j.taskRatioToHttpCeiling, 3)],
        ['bullmqTasksPerSecond', fmt(j.bullmqTasksPerSecond)],
        ['ratioToBullmq', fmt(j.ratioToBullmq, 3)],
        ['updateV2TasksPerSecond', fmt(j.updateV2TasksPerSecond)],
        ['ratioToBullmqUpdateV2', fmt(j.ratioToBullmqUpdateV2, 3)],
        ['startP99Ms', fmt(j.startP99Ms, 2)],
        ['updateP99Ms', fmt(j.updateP99Ms, 2)],
        ['scheduleToPollP99Ms', fmt(j.scheduleToPollP99Ms, 2)],
        ['rssMbPeak', fmt(j.rssMbPeak, 1)],
        ['rssMbAfter100k', fmt(j.rssMbAfter100k, 1)],
        ['twoServersTasksPerSecond / twoServersToOne', `${fmt(j.twoServersTasksPerSecond)} / ${fmt(j.twoServersToOne, 2)}`],
        ['twoServersRatioToRawHttp / twoServersRatioToBullmq', `${fmt(j.twoServersRatioToRawHttp, 3)} / ${fmt(j.twoServersRatioToBullmq, 3)}`],
      ],
    ),
  );
  out.push('');
  out.push('Targets');
  out.push(
    formatTable(
      ['target', 'wanted', 'actual', 'result', 'reason (measured)'],
      j.targets.map((t) => [
        t.name,
        t.target,
        t.actual === null ? '–' : String(t.actual),
        t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED',
        t.reason ?? '',
      ]),
    ),
  );
  return out.join('\n');
}

const verdict = (t: Target | undefined): string => (!t || t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED');

/** Every peer and ratio beside its target, one row each. */
function peerRows(j: LatestJson): string[][] {
  const target = (name: string): Target | undefined => j.targets.find((t) => t.name === name);
  const row = (label: string, baton: string, peer: string, r: number | null, name: string): string[] => [
    label,
    baton,
    peer,
    fmt(r, 3),
    target(name)?.target ?? '',
    name ? verdict(target(name)) : '',
  ];
  const batonRps = j.details.simple3?.ok ? j.details.simple3.result.httpRequestsPerSecond : null;
  return [
    row('tasks/s vs Conductor OSS (3-task SIMPLE)', fmt(j.tasksPerSecond), fmt(j.conductorTasksPerSecond), j.ratioToConductor, 'ratioToConductor (tasks/s)'),
    row(
      'workflows/s vs Dapr Workflow (3 steps)',
      fmt(j.workflowsPerSecond, 1),
      fmt(j.daprWorkflowsPerSecond, 1),
      j.ratioToDaprWorkflow,
      'ratioToDaprWorkflow (workflows/s)',
    ),
    row(
      'tasks/s vs Conductor OSS on PostgreSQL (3-task SIMPLE)',
      fmt(j.tasksPerSecond),
      fmt(j.conductorPgTasksPerSecond),
      j.ratioToConductorPg,
      'ratioToConductorPg (tasks/s)',
    ),
    row('workflows/s vs Restate (3 steps)', fmt(j.workflowsPerSecond, 1), fmt(j.restateWorkflowsPerSecond, 1), j.ratioToRestate, ''),
    row(
      'server CPU ms per workflow vs Restate (lower is better)',
      fmt(j.embeddedCpuMsPerWorkflow, 2),
      fmt(j.restateCpuMsPerWorkflow, 2),
      j.cpuPerWorkflowToRestate,
      '',
    ),
    row('HTTP req/s vs bare node:http', fmt(batonRps), fmt(j.rawHttpCeilingRps), j.ratioToRawHttp, 'ratioToRawHttp (HTTP requests)'),
    row('HTTP req/s vs express 5', fmt(batonRps), fmt(j.httpCeilingRps), j.ratioToHttpCeiling, 'ratioToHttpCeiling'),
    row('tasks/s vs BullMQ jobs/s (poll + update)', fmt(j.tasksPerSecond), fmt(j.bullmqTasksPerSecond), j.ratioToBullmq, 'ratioToBullmq'),
    row(
      'tasks/s vs BullMQ jobs/s (update-v2)',
      fmt(j.updateV2TasksPerSecond),
      fmt(j.bullmqTasksPerSecond),
      j.ratioToBullmqUpdateV2,
      'ratioToBullmq, update-v2 workers',
    ),
    row('update-v2 vs poll + update workers', fmt(j.updateV2TasksPerSecond), fmt(j.tasksPerSecond), j.updateV2ToClassic, 'updateV2ToClassic'),
    row('update p99 ms at 70% (Conductor at 70% of its max)', fmt(j.updateP99Ms, 1), fmt(j.conductorUpdateP99Ms, 1), null, 'updateP99Ms at 70%'),
    row('schedule-to-poll p99 ms at 70%', fmt(j.scheduleToPollP99Ms, 1), fmt(j.conductorScheduleToPollP99Ms, 1), null, 'scheduleToPollP99Ms at 70%'),
    row('start p99 ms at 70%', fmt(j.startP99Ms, 1), fmt(j.conductorStartP99Ms, 1), null, 'startP99Ms at 70%'),
    row('distributed: sidecar calls per task', fmt(j.sidecarCallsPerTask, 2), '', null, 'sidecarCallsPerTask (distributed)'),
    row(
      'distributed: sidecar calls per task, update-v2 workers',
      fmt(j.sidecarCallsPerTaskUpdateV2, 2),
      '',
      null,
      'sidecarCallsPerTask (distributed, update-v2 workers)',
    ),
    row('distributed: replicas CPU ms per task', fmt(j.distributedReplicaCpuMsPerTask, 2), '', null, 'distributedReplicaCpuMsPerTask'),
    row(
      'distributed: daprd, placement, scheduler, Redis CPU ms per task',
      fmt(j.distributedSidecarCpuMsPerTask, 2),
      '',
      null,
      'distributedSidecarCpuMsPerTask',
    ),
    row('distributed: Redis commands per task', fmt(j.redisCommandsPerTask, 2), '', null, 'redisCommandsPerTask'),
    row('distributed: Cassandra requests per task', fmt(j.cassandraRequestsPerTask, 2), '', null, 'cassandraRequestsPerTask'),
    row('distributed: Cassandra LWTs per task', fmt(j.cassandraLwtPerTask, 2), '', null, 'cassandraLwtPerTask'),
    row('distributed: Elasticsearch documents per task', fmt(j.esDocumentsPerTask, 2), '', null, 'esDocumentsPerTask'),
    row(
      'distributed tasks/s vs the start commit (--baseline)',
      fmt(j.distributedTasksPerSecond),
      fmt(j.baselineDistributedTasksPerSecond),
      j.distributedTasksPerSecondToBaseline,
      'distributedTasksPerSecond vs the start commit',
    ),
    row(
      'distributed CPU ms per task outside the databases vs Dapr Workflow per activity',
      fmt(
        j.distributedReplicaCpuMsPerTask != null && j.distributedSidecarCpuMsPerTask != null
          ? j.distributedReplicaCpuMsPerTask + j.distributedSidecarCpuMsPerTask
          : null,
        2,
      ),
      fmt(j.daprWorkflowCpuMsPerActivity, 2),
      j.distributedCpuToDaprWorkflow,
      'distributed CPU per task outside the databases vs Dapr Workflow per activity',
    ),
    row(
      'distributed CPU ms per task (with Cassandra, ES) vs Conductor on PostgreSQL (JVM + PostgreSQL)',
      fmt(j.distributedCpuMsPerTask, 2),
      fmt(j.conductorPgCpuMsPerTask, 2),
      j.distributedCpuToConductorPg,
      'distributed CPU per task vs Conductor on PostgreSQL',
    ),
  ];
}

function cpu(o: Outcome<unknown>): string {
  return o.ok ? fmt(o.server.cpuCores, 2) : '';
}
