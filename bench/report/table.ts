/** The run as a readable text report for stdout (pure). */
import type { LatencySummary } from '../stats/percentiles';
import type { LatestJson, Outcome } from './results';

/** Columns padded to their widest cell; numbers right-aligned. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,/ ×%]*$/.test(r[i] ?? '') ));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (numeric[i] && i > 0 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = (n: number | null | undefined, digits = 0): string =>
  n == null ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const pair = (l: LatencySummary | null | undefined): string => (l ? `${fmt(l.p50, 1)} / ${fmt(l.p99, 1)}` : '–');

const failed = (o: Outcome<unknown> | undefined): string | null => (o && !o.ok ? o.error.split('\n')[0] ?? 'failed' : null);

export function renderReport(j: LatestJson): string {
  const d = j.details;
  const out: string[] = [];
  const m = j.machine;
  out.push(`Baton benchmark (${j.mode}) — ${m.cores} cores (${m.cpuModel}), Node ${m.nodeVersion}, load average at start ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')}`);
  out.push(`Server, load process and references all share this machine. Run took ${fmt(d.durationSeconds)} s.`);
  out.push('');

  out.push('Reference points');
  const refRows: string[][] = [];
  if (d.ceiling) {
    const c = d.ceiling.ok ? d.ceiling.result : null;
    refRows.push(['HTTP ceiling: express 5, trivial JSON POST', c ? `${fmt(c.requestsPerSecond)} req/s` : `FAILED: ${failed(d.ceiling)}`, c ? pair(c.latencyMs) : '', cpu(d.ceiling)]);
  }
  if (d.bullmq) {
    const b = d.bullmq.ok ? d.bullmq.result : null;
    refRows.push(['BullMQ: 3-job chains, Redis AOF everysec', b ? `${fmt(b.jobsPerSecond)} jobs/s` : `FAILED: ${failed(d.bullmq)}`, b ? pair(b.jobLatencyMs) : '', cpu(d.bullmq)]);
  }
  out.push(formatTable(['reference', 'rate', 'latency p50 / p99 ms', 'server CPU cores'], refRows));
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
      r.errors.count ? String(r.errors.count) : '0',
      `${r.verification.completed}/${r.verification.checked}`,
    ]);
  }
  out.push(
    formatTable(
      ['workflow', 'tasks/s', 'workflows/s', 'HTTP req/s', 'tasks/poll', 'start p50/p99', 'update p50/p99', 'sched→poll p50/p99', 'CPU server/load', 'errors', 'verified'],
      tRows,
    ),
  );
  out.push('');

  if (d.latency) {
    out.push(`Latency at ${Math.round(((d.settings.latencyLoad as number) ?? 0.7) * 100)}% of the maximum (open loop, 3-task workflow; ms)`);
    if (!d.latency.ok) out.push(`FAILED: ${failed(d.latency)}`);
    else {
      const l = d.latency.result;
      out.push(`target ${fmt(l.targetStartsPerSecond, 1)} starts/s, achieved ${fmt(l.achievedStartsPerSecond, 1)}/s, ${fmt(l.tasksPerSecond)} tasks/s, ${fmt(l.tasksPerPoll, 2)} tasks per poll, ${l.startsSkipped} starts skipped, ${fmt(l.backlogAtWindowStart)} in flight when the window opened, errors ${l.errors.count}`);
      const row = (name: string, s: LatencySummary | null): string[] => [name, fmt(s?.p50, 2), fmt(s?.p90, 2), fmt(s?.p99, 2), fmt(s?.p999, 2), fmt(s?.max, 2), fmt(s?.count)];
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
    out.push(formatTable(['in flight', 'starts', 'start p50/p99', 'drained', 'tasks/s', 'update p50/p99', 'sched→poll p50/p99', 'RSS MB backlog/after', 'errors'], rows));
    out.push('');
  }

  out.push('Memory (Baton, /proc/<pid>/status)');
  const mem = d.memory;
  out.push(`peak RSS ${fmt(mem.rssMbPeak)} MB; ` + (mem.soakTarget > 0 ? `RSS after ${fmt(mem.soakCompleted)} completed workflows ${fmt(mem.rssMbAfterSoak)} MB` : 'no 100k soak in quick mode'));
  if (mem.trend) {
    const t = mem.trend;
    out.push(`whole soak: first reading ${fmt(t.firstMb)} MB, highest ${fmt(t.maxMb)} MB`);
    out.push(`second half: ${fmt(t.baselineMb)} MB -> ${fmt(t.finalMb)} MB (${t.growthMb >= 0 ? '+' : ''}${t.growthMb} MB, trend ${t.slopeMbPer10k} MB per 10k workflows): ${t.flat ? 'flat' : 'GROWING'}`);
  }
  out.push('');

  if (d.profiles) {
    out.push('CPU profiles of Baton (node --cpu-prof; profiling slows every figure above)');
    for (const [phase, hot] of Object.entries(d.profiles)) {
      out.push(`${phase}:`);
      out.push(formatTable(['self %', 'self ms', 'function', 'where'], hot.map((h) => [fmt(h.selfPercent, 1), fmt(h.selfMs), h.name, h.where])));
    }
    out.push('');
  }

  out.push('Summary');
  out.push(
    formatTable(
      ['key', 'value'],
      [
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
      ],
    ),
  );
  out.push('');
  out.push('Targets');
  out.push(
    formatTable(
      ['target', 'wanted', 'actual', 'result'],
      j.targets.map((t) => [t.name, t.target, t.actual === null ? '–' : String(t.actual), t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED']),
    ),
  );
  return out.join('\n');
}

function cpu(o: Outcome<unknown>): string {
  return o.ok ? fmt(o.server.cpuCores, 2) : '';
}
