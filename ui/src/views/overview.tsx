import { useEffect, useMemo, useRef } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import type { Overview } from '../../../src/search/overview';
import { call } from '../api/typed';
import { useAsync } from '../api/use-async';
import { duration, ErrorBanner } from '../components/common';

// The overview: the last hour as charts (chart.js, loaded with this view only) and, beside each chart, a
// table of the same numbers. Only the chart.js parts drawn here are registered, so the rest is left out.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

const PALETTE = ['#2459c7', '#d9480f', '#2b8a3e', '#ae3ec9', '#e67700', '#1098ad', '#c2255c', '#5c940d', '#364fc7', '#862e9c'];
const color = (i: number): string => PALETTE[i % PALETTE.length]!;
const minuteLabel = (ms: number): string => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

function ChartCanvas({ config, label, testId }: { config: ChartConfiguration; label: string; testId: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const chart = new Chart(ref.current!, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart-box">
      <canvas ref={ref} role="img" aria-label={label} data-testid={testId} />
    </div>
  );
}

type Metric = 'started' | 'completed' | 'failed';

function perMinute(o: Overview, metric: Metric): ChartConfiguration {
  return {
    type: 'line',
    data: {
      labels: o.buckets.map(minuteLabel),
      datasets: o.series.map((s, i) => ({ label: s.name, data: s[metric], borderColor: color(i), backgroundColor: color(i), pointRadius: 0, borderWidth: 2 })),
    },
    options: { animation: false, maintainAspectRatio: false, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
  };
}

function bars(labels: string[], values: number[], label: string): ChartConfiguration {
  return {
    type: 'bar',
    data: { labels, datasets: [{ label, data: values, backgroundColor: labels.map((_, i) => color(i)) }] },
    options: { animation: false, maintainAspectRatio: false, indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true } } },
  };
}

function Panel({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <figure className="panel chart-panel">
      <figcaption>
        <h2>{title}</h2>
      </figcaption>
      {children}
    </figure>
  );
}

function NumbersTable({ testId, head, rows }: { testId: string; head: string[]; rows: Array<Array<string | number>> }) {
  return (
    <table data-testid={testId} className="compact">
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={String(r[0])} data-testid={`${testId}-row`} data-name={String(r[0])}>
            {r.map((c, i) => (
              <td key={i}>{c}</td>
            ))}
          </tr>
        ))}
        {rows.length === 0 && (
          <tr>
            <td colSpan={head.length} className="muted">
              Nothing in the last hour.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function OverviewView() {
  const overview = useAsync(() => call('GET /api/overview'), [], 15_000);
  const o = overview.data;
  const charts = useMemo(
    () =>
      o && {
        started: perMinute(o, 'started'),
        completed: perMinute(o, 'completed'),
        failed: perMinute(o, 'failed'),
        queues: bars(
          o.queues.map((q) => q.taskType),
          o.queues.map((q) => q.depth),
          'Pending tasks',
        ),
        waits: bars(
          o.taskWaits.map((w) => w.taskType),
          o.taskWaits.map((w) => w.avgMs),
          'Average wait (ms)',
        ),
        slowest: bars(
          o.slowest.map((s) => s.name),
          o.slowest.map((s) => s.avgMs),
          'Average duration (ms)',
        ),
        failing: bars(
          o.failing.map((f) => f.name),
          o.failing.map((f) => f.failed),
          'Failed',
        ),
      },
    [o],
  );
  return (
    <section>
      <h1>Overview</h1>
      <p className="muted">The last hour, per minute, from the search index; refreshed every 15 s.</p>
      <ErrorBanner error={overview.error} />
      {o && charts && (
        <div className="overview-grid">
          <Panel title="Started per minute">
            <ChartCanvas config={charts.started} label="Executions started per minute by workflow name" testId="chart-started" />
          </Panel>
          <Panel title="Completed per minute">
            <ChartCanvas config={charts.completed} label="Executions completed per minute by workflow name" testId="chart-completed" />
          </Panel>
          <Panel title="Failed per minute">
            <ChartCanvas config={charts.failed} label="Executions failed or timed out per minute by workflow name" testId="chart-failed" />
          </Panel>
          <Panel title="Executions in the last hour">
            <NumbersTable
              testId="series"
              head={['Workflow', 'Started', 'Completed', 'Failed']}
              rows={o.series.map((s) => [s.name, total(s.started), total(s.completed), total(s.failed)])}
            />
          </Panel>
          <Panel title="Queue depth">
            <ChartCanvas config={charts.queues} label="Pending tasks by queue" testId="chart-queues" />
            <NumbersTable testId="queue-depths" head={['Queue', 'Pending']} rows={o.queues.map((q) => [q.taskType, q.depth])} />
          </Panel>
          <Panel title="Task wait in queue">
            <ChartCanvas config={charts.waits} label="Average time tasks waited in their queue, by task type" testId="chart-waits" />
            <NumbersTable
              testId="task-waits"
              head={['Task type', 'Started', 'Average', 'Longest']}
              rows={o.taskWaits.map((w) => [w.taskType, w.count, duration(w.avgMs), duration(w.maxMs)])}
            />
          </Panel>
          <Panel title="Slowest workflows">
            <ChartCanvas config={charts.slowest} label="Average duration of completed executions by workflow name" testId="chart-slowest" />
            <NumbersTable
              testId="slowest"
              head={['Workflow', 'Completed', 'Average', 'Longest']}
              rows={o.slowest.map((s) => [s.name, s.count, duration(s.avgMs), duration(s.maxMs)])}
            />
          </Panel>
          <Panel title="Most failing workflows">
            <ChartCanvas config={charts.failing} label="Failed executions by workflow name" testId="chart-failing" />
            <NumbersTable testId="failing" head={['Workflow', 'Failed', 'Ended']} rows={o.failing.map((f) => [f.name, f.failed, f.ended])} />
          </Panel>
        </div>
      )}
    </section>
  );
}
