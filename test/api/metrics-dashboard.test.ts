import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { apiClient } from '../support/api-client';
import { call, startBaton, type TestBaton } from '../support/baton';

// The Grafana dashboard the chart ships queries only metrics Baton exports: every metric name in
// its PromQL is checked against the families of a live /metrics of a test server. The chart is
// rendered with the real helm to check the ConfigMap Grafana's sidecar loads.

const root = path.resolve(__dirname, '../..');
const dashboardFile = path.join(root, 'charts/baton/dashboards/baton.json');

let b: TestBaton;
beforeAll(async () => {
  b = await startBaton();
  // One workflow through the API, so the labelled series exist besides their families.
  const api = apiClient(() => b.url);
  const name = api.uniq('dash');
  const type = api.uniq('dash_t');
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }] });
  const id = await api.start(name);
  await api.complete(await api.pollOne(type));
  await api.waitForStatus(id, 'COMPLETED');
});
afterAll(async () => {
  await b?.stop();
});

interface Family {
  name: string;
  type: string;
}

async function liveFamilies(): Promise<Map<string, Family>> {
  const r = await call(b.url, 'GET', '/metrics');
  expect(r.status).toBe(200);
  return new Map([...r.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, { name: m[1]!, type: m[2]! }]));
}

/** The family a queried series belongs to: itself, or a histogram's (or summary's) _bucket, _sum, _count. */
function familyOf(series: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(series);
  if (direct) return direct;
  const m = /^(.*)_(bucket|sum|count)$/.exec(series);
  const f = m ? families.get(m[1]!) : undefined;
  if (!f) return undefined;
  return f.type === 'histogram' || (f.type === 'summary' && m![2] !== 'bucket') ? f : undefined;
}

function dashboardExprs(json: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'expr' && typeof x === 'string') out.push(x);
        else walk(x);
      }
    }
  };
  walk(json);
  return out;
}

/** Metric names in a PromQL expression: identifiers before a selector, range or closing parenthesis, minus functions and keywords. */
const PROMQL_WORDS = new Set([
  'sum',
  'by',
  'or',
  'and',
  'unless',
  'rate',
  'max',
  'min',
  'avg',
  'histogram_quantile',
  'le',
  'without',
  'increase',
  'irate',
  'count',
  'topk',
]);
function metricNames(expr: string): string[] {
  const noStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\[[^\]]*\]/g, '[]');
  const labelsOut = noStrings.replace(/\{[^}]*\}/g, '{}').replace(/\bby \([^)]*\)/g, '');
  return [...labelsOut.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w) && !/^\d/.test(w));
}

test('every metric the dashboard queries is one a live Baton exports', async () => {
  const dashboard = JSON.parse(readFileSync(dashboardFile, 'utf8'));
  const exprs = dashboardExprs(dashboard);
  expect(exprs.length).toBeGreaterThanOrEqual(15);
  const families = await liveFamilies();
  const unknown: string[] = [];
  const queried = new Set<string>();
  for (const expr of exprs) {
    const names = metricNames(expr);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) {
      const f = familyOf(n, families);
      if (!f) unknown.push(`${n} (in ${expr})`);
      else queried.add(f.name);
    }
  }
  expect(unknown).toEqual([]);
  // And the dashboard covers every Baton family.
  const batonFamilies = [...families.keys()].filter((n) => n.startsWith('baton_'));
  expect(batonFamilies.filter((n) => !queried.has(n))).toEqual([]);
});

/** The helm binary: HELM_BIN, BATON_HELM_BIN, the one `npm run services` provisions, or PATH. */
function findHelm(): string | undefined {
  const provisioned = path.join(os.homedir(), '.cache/baton/run/helm.env');
  const fromEnvFile = existsSync(provisioned) ? /^BATON_HELM_BIN=(.*)$/m.exec(readFileSync(provisioned, 'utf8'))?.[1] : undefined;
  const candidates = [
    process.env.HELM_BIN,
    process.env.BATON_HELM_BIN,
    fromEnvFile,
    ...(process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'helm')),
  ];
  return candidates.find((c): c is string => !!c && existsSync(c));
}
const helm = findHelm();
if (!helm)
  console.warn('metrics-dashboard.test: helm not found (HELM_BIN, BATON_HELM_BIN, ~/.cache/baton/run/helm.env or PATH); the chart render checks are skipped');

function render(sets: string[]): Array<Record<string, any>> {
  const r = spawnSync(helm!, ['template', 'baton', 'charts/baton', '--namespace', 'work', ...sets.flatMap((s) => ['--set', s])], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS())
    .filter((d) => d && typeof d === 'object');
}
const dashboardMaps = (docs: Array<Record<string, any>>) => docs.filter((d) => d.kind === 'ConfigMap' && d.metadata?.labels?.grafana_dashboard !== undefined);

(helm ? describe : describe.skip)('the chart, rendered by helm', () => {
  test('ships the dashboard as a ConfigMap labelled for the Grafana sidecar when enabled, none by default', () => {
    expect(dashboardMaps(render([]))).toEqual([]);
    const [cm, ...more] = dashboardMaps(
      render(['grafanaDashboard.enabled=true', 'grafanaDashboard.namespace=monitoring', 'grafanaDashboard.annotations.grafana_folder=Baton']),
    );
    expect(more).toEqual([]);
    expect(cm!.metadata.labels.grafana_dashboard).toBe('1');
    expect(cm!.metadata.namespace).toBe('monitoring');
    expect(cm!.metadata.annotations).toEqual({ grafana_folder: 'Baton' });
    expect(JSON.parse(cm!.data['baton.json'])).toEqual(JSON.parse(readFileSync(dashboardFile, 'utf8')));
  });
});
