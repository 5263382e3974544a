/**
 * Deployment artefacts: the Dapr components, the Helm chart and the Dockerfile. Parsed and
 * cross-checked statically; rendered with `helm template` too when a helm binary is found
 * (HELM_BIN, BATON_HELM_BIN or PATH). test/real/helm-chart.test.ts checks the renders against the
 * Kubernetes and Dapr schemas.
 */
import { exitDeadlineMs } from '../../../src/exit-deadline';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const root = path.resolve(__dirname, '../../..');
const componentsDir = path.join(root, 'components');
const chartDir = path.join(root, 'charts/baton');
const templatesDir = path.join(chartDir, 'templates');

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function obj(v: unknown, what: string): Obj {
  if (!isObj(v)) throw new Error(`${what} is not a mapping`);
  return v;
}
function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not a list`);
  return v;
}
function read(p: string): string {
  return readFileSync(p, 'utf8');
}
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Env names Baton's config reads (the lead's config.ts uses exactly these). */
const batonEnvNames = [
  'BATON_PROFILE',
  'PORT',
  'LOG_LEVEL',
  'BATON_DATA_DIR',
  'CASSANDRA_CONTACT_POINTS',
  'CASSANDRA_LOCAL_DC',
  'CASSANDRA_KEYSPACE',
  'CASSANDRA_USERNAME',
  'CASSANDRA_PASSWORD',
  'BATON_CASSANDRA_MIGRATE',
  'CASSANDRA_CONSISTENCY',
  'CASSANDRA_REPLICATION',
  'ELASTICSEARCH_URL',
  'ELASTICSEARCH_USERNAME',
  'ELASTICSEARCH_PASSWORD',
  'ELASTICSEARCH_INDEX_PREFIX',
  'REDIS_URL',
  'BATON_DAPR_PUBSUB',
  'BATON_DAPR_COMPLETION_TOPIC',
  'BATON_DAPR_STATUS_TOPIC',
  'DAPR_API_TOKEN',
  'APP_API_TOKEN',
  'BATON_DAPR_DRAIN_MS',
  'BATON_SHUTDOWN_TIMEOUT_MS',
  'BATON_BIND',
  'BATON_AUTH',
  'BATON_ADMIN_KEY_ID',
  'BATON_ADMIN_KEY_SECRET',
  'BATON_OBJECT_STORE',
  'BATON_S3_BUCKET',
  'BATON_S3_REGION',
  'BATON_S3_ENDPOINT',
  'BATON_S3_ACCESS_KEY_ID',
  'BATON_S3_SECRET_ACCESS_KEY',
];

const requiredDaprAnnotations = [
  'dapr.io/enabled',
  'dapr.io/app-id',
  'dapr.io/app-port',
  'dapr.io/app-protocol',
  'dapr.io/config',
  'dapr.io/log-level',
  'dapr.io/graceful-shutdown-seconds',
  'dapr.io/enable-api-logging',
  'dapr.io/sidecar-cpu-request',
  'dapr.io/sidecar-cpu-limit',
  'dapr.io/sidecar-memory-request',
  'dapr.io/sidecar-memory-limit',
  'dapr.io/block-shutdown-duration',
  'dapr.io/api-token-secret',
  'dapr.io/app-token-secret',
  'dapr.io/enable-app-health-check',
  'dapr.io/app-health-check-path',
];

/** Metadata entries of a Component as name -> entry. */
function componentMetadata(doc: Obj): Map<string, Obj> {
  const spec = obj(doc.spec, 'spec');
  const entries = arr(spec.metadata ?? [], 'spec.metadata').map((e) => obj(e, 'metadata entry'));
  return new Map(entries.map((e) => [String(e.name), e]));
}

/** Every timeout/retry/circuit breaker a Resiliency target names is defined in its policies. */
function resiliencyDanglingRefs(doc: Obj): string[] {
  const spec = obj(doc.spec, 'spec');
  const policies = obj(spec.policies, 'spec.policies');
  const defined = {
    timeout: Object.keys(obj(policies.timeouts ?? {}, 'timeouts')),
    retry: Object.keys(obj(policies.retries ?? {}, 'retries')),
    circuitBreaker: Object.keys(obj(policies.circuitBreakers ?? {}, 'circuitBreakers')),
  };
  const targets = obj(spec.targets, 'spec.targets');
  const uses: Obj[] = [];
  for (const kind of ['apps', 'actors'] as const) {
    for (const t of Object.values(obj(targets[kind] ?? {}, kind))) uses.push(obj(t, kind));
  }
  for (const c of Object.values(obj(targets.components ?? {}, 'components'))) {
    const dir = obj(c, 'component target');
    for (const way of ['inbound', 'outbound']) if (dir[way] !== undefined) uses.push(obj(dir[way], way));
  }
  const dangling: string[] = [];
  for (const use of uses) {
    for (const key of ['timeout', 'retry', 'circuitBreaker'] as const) {
      const name = use[key];
      if (name !== undefined && !defined[key].includes(String(name))) dangling.push(`${key} ${String(name)}`);
    }
  }
  return dangling;
}

describe('Dapr components (components/)', () => {
  const expected: Record<string, { kind: string; type?: string }> = {
    'actorstate.yaml': { kind: 'Component', type: 'state.redis' },
    'pubsub.yaml': { kind: 'Component', type: 'pubsub.redis' },
    'resiliency.yaml': { kind: 'Resiliency' },
    'configuration.yaml': { kind: 'Configuration' },
    'secretstore.yaml': { kind: 'Component', type: 'secretstores.local.env' },
  };
  const files = readdirSync(componentsDir).filter((f) => /\.ya?ml$/.test(f));
  const docs = new Map(files.map((f) => [f, obj(parse(read(path.join(componentsDir, f))), f)]));

  test('every YAML file parses as one dapr.io/v1alpha1 resource of the expected kind and type', () => {
    expect(files.sort()).toEqual(Object.keys(expected).sort());
    for (const [file, doc] of docs) {
      expect(parseAllDocuments(read(path.join(componentsDir, file)))).toHaveLength(1);
      expect(doc.apiVersion).toBe('dapr.io/v1alpha1');
      expect(doc.kind).toBe(expected[file].kind);
      if (expected[file].type) {
        const spec = obj(doc.spec, `${file} spec`);
        expect(spec.type).toBe(expected[file].type);
        expect(spec.version).toBe('v1');
      }
      // Every resource file explains itself.
      expect(read(path.join(componentsDir, file)).startsWith('#')).toBe(true);
    }
  });

  test('components and the resiliency are scoped to the baton app id; the configuration has no scopes field', () => {
    for (const [, doc] of docs) {
      if (doc.kind === 'Configuration') expect(doc.scopes).toBeUndefined();
      else expect(doc.scopes).toEqual(['baton']);
    }
  });

  test('exactly one actor state store: state.redis with actorStateStore "true" (a string)', () => {
    const stores = [...docs.values()].filter((d) => d.kind === 'Component' && componentMetadata(d).get('actorStateStore')?.value !== undefined);
    expect(stores).toHaveLength(1);
    const store = stores[0];
    expect(obj(store.metadata, 'metadata').name).toBe('baton-actorstate');
    expect(componentMetadata(store).get('actorStateStore')?.value).toBe('true');
  });

  test('pub/sub is pubsub.redis named baton-pubsub with consumer settings', () => {
    const pubsub = docs.get('pubsub.yaml')!;
    expect(obj(pubsub.metadata, 'metadata').name).toBe('baton-pubsub');
    const md = componentMetadata(pubsub);
    for (const key of ['consumerID', 'processingTimeout', 'redeliverInterval', 'concurrency', 'maxLenApprox']) {
      expect(typeof md.get(key)?.value).toBe('string');
    }
  });

  test('Redis host and password come from secret refs resolved by the secret store in the folder', () => {
    const storeName = obj(docs.get('secretstore.yaml')!.metadata, 'metadata').name;
    for (const file of ['actorstate.yaml', 'pubsub.yaml']) {
      const doc = docs.get(file)!;
      const md = componentMetadata(doc);
      for (const key of ['redisHost', 'redisPassword']) {
        const ref = obj(md.get(key)?.secretKeyRef, `${file} ${key}.secretKeyRef`);
        expect(ref.name).toBe(ref.key); // local.env answers a secret with a single key of its own name
        expect(String(ref.name).startsWith('DAPR_')).toBe(false); // local.env refuses DAPR_* names
      }
      expect(obj(doc.auth, `${file} auth`).secretStore).toBe(storeName);
      // Component metadata values are strings (Dapr reads them as strings).
      for (const entry of md.values()) {
        if (entry.value !== undefined) expect(typeof entry.value).toBe('string');
      }
    }
  });

  test('resiliency covers the app, every actor type and the pub/sub, and names only defined policies', () => {
    const res = docs.get('resiliency.yaml')!;
    const targets = obj(obj(res.spec, 'spec').targets, 'targets');
    expect(Object.keys(obj(targets.apps, 'apps'))).toEqual(['baton']);
    expect(Object.keys(obj(targets.actors, 'actors')).sort()).toEqual(['QueueActor', 'ScheduleActor', 'WorkflowActor']);
    const components = Object.keys(obj(targets.components, 'components'));
    expect(components).toEqual(expect.arrayContaining(['baton-pubsub', 'baton-actorstate']));
    const policies = obj(obj(res.spec, 'spec').policies, 'policies');
    expect(Object.keys(obj(policies.circuitBreakers, 'circuitBreakers')).length).toBeGreaterThan(0);
    expect(resiliencyDanglingRefs(res)).toEqual([]);
  });

  test('configuration turns tracing off by default', () => {
    const spec = obj(docs.get('configuration.yaml')!.spec, 'spec');
    expect(obj(spec.tracing, 'tracing').samplingRate).toBe('0');
  });
});

/** `.Values.a.b` paths referenced by templates, following `$x := .Values.a` aliases too. */
function referencedValuePaths(text: string): string[] {
  const paths = new Set<string>();
  for (const m of text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) paths.add(m[1].slice(1));
  for (const alias of text.matchAll(/\$([A-Za-z_]\w*)\s*:=\s*\.Values((?:\.[A-Za-z_]\w*)+)/g)) {
    const [, name, base] = alias;
    for (const m of text.matchAll(new RegExp(`\\$${name}((?:\\.[A-Za-z_]\\w*)+)`, 'g'))) {
      paths.add(`${base.slice(1)}${m[1]}`);
    }
  }
  return [...paths];
}
function hasPath(values: unknown, dotted: string): boolean {
  let node: unknown = values;
  for (const key of dotted.split('.')) {
    if (!isObj(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}
function leafPaths(node: unknown, prefix = ''): string[] {
  if (!isObj(node) || Object.keys(node).length === 0) return [prefix];
  return Object.entries(node).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

describe('Helm chart (charts/baton)', () => {
  const chart = obj(parse(read(path.join(chartDir, 'Chart.yaml'))), 'Chart.yaml');
  const valuesText = read(path.join(chartDir, 'values.yaml'));
  const values = obj(parse(valuesText), 'values.yaml');
  const templateFiles = filesUnder(templatesDir);
  const templatesText = templateFiles.map(read).join('\n');
  const deploymentAndHelpers = read(path.join(templatesDir, 'deployment.yaml')) + read(path.join(templatesDir, '_helpers.tpl'));

  test('Chart.yaml is an apiVersion v2 application chart', () => {
    expect(chart.apiVersion).toBe('v2');
    expect(chart.name).toBe('baton');
    expect(chart.type).toBe('application');
    expect(String(chart.version)).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof chart.appVersion).toBe('string');
  });

  test('the chart has the expected templates, NOTES.txt and a README', () => {
    const names = templateFiles.map((f) => path.relative(templatesDir, f)).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        '_helpers.tpl',
        'NOTES.txt',
        'configmap.yaml',
        'deployment.yaml',
        'hpa.yaml',
        'pdb.yaml',
        'service.yaml',
        'serviceaccount.yaml',
        'networkpolicy.yaml',
        'secret-tokens.yaml',
        'dapr/actorstate.yaml',
        'dapr/pubsub.yaml',
        'dapr/resiliency.yaml',
        'dapr/configuration.yaml',
      ]),
    );
    expect(existsSync(path.join(chartDir, 'README.md'))).toBe(true);
  });

  test('every value in values.yaml has a comment above it or on its line', () => {
    const lines = valuesText.split('\n');
    const undocumented = lines.flatMap((line, i) => {
      const key = /^\s*([A-Za-z_][\w.-]*):/.exec(line);
      if (!key) return [];
      const above = (lines[i - 1] ?? '').trim();
      return above.startsWith('#') || / #\s/.test(line) ? [] : [`line ${i + 1}: ${key[1]}`];
    });
    expect(undocumented).toEqual([]);
  });

  test('every .Values path the templates reference exists in values.yaml', () => {
    const refs = referencedValuePaths(templatesText);
    expect(refs.length).toBeGreaterThan(40);
    expect(refs.filter((p) => !hasPath(values, p))).toEqual([]);
  });

  test('every value in values.yaml is used by some template', () => {
    const refs = referencedValuePaths(templatesText);
    const unused = leafPaths(values).filter((leaf) => !refs.some((r) => leaf === r || leaf.startsWith(`${r}.`)));
    expect(unused).toEqual([]);
  });

  test('the deployment sets every required dapr.io annotation, each as a quoted string', () => {
    expect(read(path.join(templatesDir, 'deployment.yaml'))).toContain('include "baton.daprAnnotations"');
    for (const annotation of requiredDaprAnnotations) expect(deploymentAndHelpers).toContain(`${annotation}:`);
    const annotationLines = deploymentAndHelpers.split('\n').filter((l) => /^\s*dapr\.io\/[\w-]+:/.test(l));
    for (const line of annotationLines) {
      expect(line.trim()).toMatch(/^dapr\.io\/[\w-]+: ("[^"]*"|\{\{.*\|\s*quote \}\})$/);
    }
    // Left unset on purpose (explained in the template): actors need concurrency.
    expect(annotationLines.some((l) => l.includes('app-max-concurrency'))).toBe(false);
    expect(deploymentAndHelpers).toMatch(/app-max-concurrency[^\n]*\n[^\n]*(actor|turn)/);
  });

  test('the deployment probes /health (readiness: the app channel /healthz) on the named container port', () => {
    const deployment = read(path.join(templatesDir, 'deployment.yaml'));
    for (const probe of ['startupProbe', 'livenessProbe']) {
      expect(deployment).toMatch(new RegExp(`${probe}:\\s*\\n\\s*httpGet:\\s*\\n\\s*path: /health\\s*\\n\\s*port: http`));
    }
    expect(deployment).toMatch(
      /readinessProbe:\s*\n\s*httpGet:\s*\n(\s*#.*\n)?\s*path: \{\{ ternary "\/healthz" "\/health" \(eq \.Values\.profile "distributed"\) \}\}\s*\n\s*port: http/,
    );
    expect(deployment).toMatch(/- name: http\s*\n\s*containerPort: \{\{ \.Values\.containerPort \}\}/);
    expect(values.containerPort).toBe(8080);
    expect(obj(values.service, 'service').port).toBe(8080);
  });

  test('the pod runs non-root with a read-only root filesystem', () => {
    const pod = obj(values.podSecurityContext, 'podSecurityContext');
    expect(pod.runAsNonRoot).toBe(true);
    expect(pod.runAsUser).toBe(1000);
    expect(obj(values.securityContext, 'securityContext').readOnlyRootFilesystem).toBe(true);
  });

  test('templates mention every Baton environment variable', () => {
    for (const name of batonEnvNames) expect(templatesText).toMatch(new RegExp(`\\b${name}\\b`));
  });

  test('safe defaults: auth on with a generated admin key, both Dapr tokens, app health checks on /healthz, NetworkTopologyStrategy in the local DC, a NetworkPolicy', () => {
    expect(obj(values.auth, 'auth')).toMatchObject({ enabled: true, existingSecret: '', corsOrigins: '' });
    const dapr = obj(values.dapr, 'dapr');
    expect(obj(dapr.apiToken, 'apiToken')).toEqual({ enabled: true, existingSecret: '' });
    expect(obj(dapr.appToken, 'appToken')).toEqual({ enabled: true, existingSecret: '' });
    const health = obj(dapr.appHealthCheck, 'appHealthCheck');
    expect([health.enabled, health.path]).toEqual([true, '/healthz']);
    const cassandra = obj(values.cassandra, 'cassandra');
    expect(cassandra.replication).toBe(`${String(cassandra.localDc)}:3`);
    expect(obj(values.networkPolicy, 'networkPolicy').enabled).toBe(true);
  });

  test('the admin key secret is generated once and kept across upgrades, like the Dapr tokens', () => {
    const secrets = read(path.join(templatesDir, 'secret-tokens.yaml'));
    expect(secrets).toMatch(/if and \.Values\.auth\.enabled \(not \.Values\.auth\.existingSecret\)/);
    expect(secrets).toContain('include "baton.tokenSecret" (dict "ctx" . "name" (include "baton.adminKeySecretName" .)');
    // baton.tokenSecret reuses the installed Secret's value (lookup) and draws a new one only on first install.
    const helpers = read(path.join(templatesDir, '_helpers.tpl'));
    expect(helpers).toMatch(/lookup "v1" "Secret" \.ctx\.Release\.Namespace \.name/);
    // Long enough for Baton, which refuses a shorter admin secret at start (src/auth/auth-settings.ts).
    const generated = Number(/randAlphaNum (\d+)/.exec(helpers)?.[1]);
    const minimum = Number(/MIN_ADMIN_SECRET_LENGTH = (\d+)/.exec(read(path.join(root, 'src/auth/auth-settings.ts')))?.[1]);
    expect(minimum).toBeGreaterThan(0);
    expect(generated).toBeGreaterThanOrEqual(minimum);
  });

  test('the grace period covers Baton stopping and its sidecar stopping', () => {
    const dapr = obj(values.dapr, 'dapr');
    const shutdown = obj(values.shutdown, 'shutdown');
    const [grace, drain, timeout] = [values.terminationGracePeriodSeconds, shutdown.drainSeconds, shutdown.timeoutSeconds].map(Number);
    const [block, graceful] = [dapr.blockShutdownSeconds, dapr.gracefulShutdownSeconds].map(Number);
    expect(grace).toBeGreaterThan(timeout + block);
    expect(grace).toBeGreaterThan(block + graceful);
    // Baton's own hard bound on its exit, from the values the chart passes it.
    expect(grace * 1000).toBeGreaterThan(
      exitDeadlineMs({ BATON_PROFILE: 'distributed', BATON_DAPR_DRAIN_MS: drain * 1000, BATON_SHUTDOWN_TIMEOUT_MS: timeout * 1000 }),
    );
    expect(block).toBeGreaterThanOrEqual(drain + timeout);
  });

  test('values-production.yaml and values-dev.yaml override only keys values.yaml has; factor 1 only in dev', () => {
    for (const file of ['values-production.yaml', 'values-dev.yaml']) {
      const overrides = obj(parse(read(path.join(chartDir, file))), file);
      const unknown = leafPaths(overrides).filter((p) => !hasPath(values, p));
      expect([file, unknown]).toEqual([file, []]);
      expect(read(path.join(chartDir, file)).startsWith('#')).toBe(true);
    }
    expect(obj(obj(parse(read(path.join(chartDir, 'values-dev.yaml'))), 'dev').cassandra, 'cassandra').replication).toBe('1');
    const production = obj(parse(read(path.join(chartDir, 'values-production.yaml'))), 'production');
    expect(obj(production.cassandra, 'cassandra').replication).toBe('dc1:3');
    expect(obj(production.autoscaling, 'autoscaling').minReplicas).toBe(3);
  });

  test('defaults point at the conventional dependency services', () => {
    expect(obj(values.cassandra, 'cassandra').contactPoints).toBe('cassandra');
    expect(String(obj(values.elasticsearch, 'elasticsearch').url)).toMatch(/\/\/elasticsearch-master:9200$/);
    const redis = obj(values.redis, 'redis');
    expect(`${String(redis.host)}:${String(redis.port)}`).toBe('redis-master:6379');
    const dapr = obj(values.dapr, 'dapr');
    expect(dapr.appId).toBe('baton');
    expect(dapr.pubsubName).toBe('baton-pubsub');
    expect(dapr.completionTopic).toBe('baton-task-completions');
    expect(dapr.statusTopic).toBe('baton-status-changes');
    expect(dapr.actorStateStoreName).toBe('baton-actorstate');
    expect(obj(dapr.components, 'dapr.components').enabled).toBe(true);
  });
});

// The names the chart sets must be the ones the server reads; checked once config.ts exists.
const configTs = path.join(root, 'src/config.ts');
const describeConfig = existsSync(configTs) ? describe : describe.skip;
if (!existsSync(configTs)) console.warn('deploy/chart.test: src/config.ts not present yet; env-name cross-check skipped');
describeConfig('chart env names vs src/config.ts', () => {
  test('config.ts reads every variable the chart sets', () => {
    const text = read(configTs);
    expect(batonEnvNames.filter((n) => !new RegExp(`\\b${n}\\b`).test(text))).toEqual([]);
  });
});

/** Logical lines of a Dockerfile (continuations joined, comments dropped). */
function dockerfileInstructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile', () => {
  const text = read(path.join(root, 'Dockerfile'));
  const instructions = dockerfileInstructions(text);
  const stageStarts = instructions.flatMap((ins, i) => (ins.op === 'FROM' ? [i] : []));
  const finalStage = instructions.slice(stageStarts[stageStarts.length - 1]);
  const buildStage = instructions.slice(stageStarts[0], stageStarts[1]);
  const args = (op: string, stage = instructions) => stage.filter((i) => i.op === op).map((i) => i.args);

  test('is a multi-stage build on Node 22 whose runtime copies from the build stage', () => {
    expect(stageStarts.length).toBeGreaterThanOrEqual(2);
    expect(args('FROM')[0]).toMatch(/ AS build$/i);
    expect(args('ARG').join(' ')).toContain('node:22');
    expect(args('COPY', finalStage).filter((a) => a.startsWith('--from=build')).length).toBeGreaterThanOrEqual(3);
  });

  test('the build stage installs a toolchain for better-sqlite3, builds and prunes dev dependencies', () => {
    const run = args('RUN', buildStage).join(' ');
    for (const needed of ['python3', 'make', 'g++', 'npm ci', 'npm run build', 'npm prune --omit=dev']) {
      expect(run).toContain(needed);
    }
  });

  test('the runtime runs as the non-root node user with the production environment', () => {
    const users = args('USER', finalStage);
    expect(users).toEqual(['node']);
    const env = args('ENV', finalStage).join(' ');
    for (const kv of ['NODE_ENV=production', 'PORT=8080', 'BATON_DATA_DIR=/data']) expect(env).toContain(kv);
    expect(args('VOLUME', finalStage).join(' ')).toContain('/data');
    expect(args('EXPOSE', finalStage)).toEqual(['8080']);
    expect(args('CMD', finalStage)).toEqual(['["node", "dist/main.js"]']);
  });

  test('the runtime carries the CQL migrations where the compiled migrator looks for them', () => {
    // src/store/cassandra/migrate.ts resolves ../../../migrations/cassandra from its own folder,
    // i.e. /app/migrations/cassandra from /app/dist/store/cassandra.
    expect(read(path.join(root, 'src/store/cassandra/migrate.ts'))).toContain("'../../../migrations/cassandra'");
    expect(args('COPY', finalStage)).toContain('migrations ./migrations');
    expect(args('WORKDIR', finalStage)).toEqual(['/app']);
  });

  test('the health check uses node fetch against /health (no curl in slim images)', () => {
    const check = args('HEALTHCHECK', finalStage).join(' ');
    expect(check).toContain('fetch(');
    expect(check).toContain('/health');
    expect(instructions.map((i) => i.args).join(' ')).not.toMatch(/\bcurl\b/);
  });

  test('every path copied from the build context exists and is not excluded by .dockerignore', () => {
    const ignored = read(path.join(root, '.dockerignore'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    const sources = args('COPY')
      .filter((a) => !a.startsWith('--from'))
      .flatMap((a) => a.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(existsSync(path.join(root, src))).toBe(true);
      expect(ignored).not.toContain(src);
    }
  });
});

/** A helm binary: $HELM_BIN, else the one `npm run services` built ($BATON_HELM_BIN), else `helm` on PATH. */
function findHelm(): string | undefined {
  const candidates = [process.env.HELM_BIN, process.env.BATON_HELM_BIN, ...(process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'helm'))];
  return candidates.find((c): c is string => !!c && existsSync(c));
}
const helm = findHelm();
const describeHelm = helm ? describe : describe.skip;
if (!helm) console.warn('deploy/chart.test: helm not found (PATH or HELM_BIN); `helm lint` and `helm template` checks skipped');

function runHelm(argv: string[]): string {
  const result = spawnSync(helm!, argv, { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`helm ${argv.join(' ')} failed: ${result.stderr || result.error?.message}`);
  return result.stdout;
}
function render(sets: string[] = []): Obj[] {
  const out = runHelm(['template', 'baton', 'charts/baton', '--namespace', 'work', ...sets.flatMap((s) => ['--set', s])]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as unknown)
    .filter(isObj);
}
function byKind(docs: Obj[], kind: string): Obj[] {
  return docs.filter((d) => d.kind === kind);
}
function podTemplate(docs: Obj[]): { meta: Obj; container: Obj } {
  const deployment = byKind(docs, 'Deployment')[0];
  const template = obj(obj(deployment.spec, 'spec').template, 'template');
  const spec = obj(template.spec, 'pod spec');
  return { meta: obj(template.metadata, 'pod metadata'), container: obj(arr(spec.containers, 'containers')[0], 'container') };
}

describeHelm('helm lint and helm template (real helm)', () => {
  test('helm lint --strict passes', () => {
    expect(runHelm(['lint', '--strict', 'charts/baton'])).toMatch(/0 chart\(s\) failed/);
  });

  test('the default render has every resource, string annotations and consistent names', () => {
    const docs = render();
    expect(docs.map((d) => `${String(d.apiVersion)} ${String(d.kind)}`).sort()).toEqual(
      [
        'apps/v1 Deployment',
        'dapr.io/v1alpha1 Component',
        'dapr.io/v1alpha1 Component',
        'dapr.io/v1alpha1 Configuration',
        'dapr.io/v1alpha1 Resiliency',
        'policy/v1 PodDisruptionBudget',
        'networking.k8s.io/v1 NetworkPolicy',
        'v1 ConfigMap',
        'v1 Secret',
        'v1 Secret',
        'v1 Secret',
        'v1 Service',
        'v1 ServiceAccount',
      ].sort(),
    );
    for (const d of docs) expect(obj(d.metadata, 'metadata').namespace).toBe('work');

    const { meta, container } = podTemplate(docs);
    const annotations = obj(meta.annotations, 'annotations');
    for (const [k, v] of Object.entries(annotations)) expect([k, typeof v]).toEqual([k, 'string']);
    for (const a of requiredDaprAnnotations.filter((a) => a !== 'dapr.io/enable-api-logging')) {
      expect(annotations[a]).toBeDefined();
    }
    expect(annotations['dapr.io/app-max-concurrency']).toBeUndefined();
    expect(annotations['dapr.io/app-protocol']).toBe('http');

    const port = obj(arr(container.ports, 'ports')[0], 'port');
    expect(annotations['dapr.io/app-port']).toBe(String(port.containerPort));
    for (const probe of ['livenessProbe', 'startupProbe']) {
      expect(obj(obj(container[probe], probe).httpGet, 'httpGet').path).toBe('/health');
    }
    expect(obj(obj(container.readinessProbe, 'readinessProbe').httpGet, 'httpGet').path).toBe('/healthz');

    const configMap = obj(byKind(docs, 'ConfigMap')[0].data, 'data');
    expect(configMap.PORT).toBe(String(port.containerPort));
    const components = byKind(docs, 'Component');
    const names = components.map((c) => obj(c.metadata, 'metadata').name);
    expect(names).toContain(configMap.BATON_DAPR_PUBSUB);
    const configuration = byKind(docs, 'Configuration')[0];
    expect(annotations['dapr.io/config']).toBe(obj(configuration.metadata, 'metadata').name);
    for (const d of [...components, ...byKind(docs, 'Resiliency')]) expect(d.scopes).toEqual([annotations['dapr.io/app-id']]);
    const store = components.find((c) => componentMetadata(c).get('actorStateStore')?.value === 'true');
    expect(obj(store?.spec, 'store spec').type).toBe('state.redis');
    expect(resiliencyDanglingRefs(byKind(docs, 'Resiliency')[0])).toEqual([]);
  });

  test('the container gets every Baton variable from the ConfigMap or its env (existing token Secrets)', () => {
    const docs = render([
      'dapr.apiToken.existingSecret=dapr-api',
      'dapr.appToken.existingSecret=app-api',
      'dapr.enableApiLogging=true',
      'cassandra.replication=dc1:3',
      'auth.existingSecret=baton-admin',
    ]);
    const { meta, container } = podTemplate(docs);
    const names = new Set([
      ...Object.keys(obj(byKind(docs, 'ConfigMap')[0].data, 'data')),
      ...arr(container.env, 'env').map((e) => String(obj(e, 'env entry').name)),
    ]);
    expect(batonEnvNames.filter((n) => !names.has(n))).toEqual([]);
    const annotations = obj(meta.annotations, 'annotations');
    expect(annotations['dapr.io/api-token-secret']).toBe('dapr-api');
    expect(annotations['dapr.io/app-token-secret']).toBe('app-api');
    expect(annotations['dapr.io/enable-api-logging']).toBe('true');
    expect(byKind(docs, 'Secret')).toEqual([]);
  });

  test('auth is on by default: Baton listens on the pod address and reads its first admin key from the chart-generated Secret', () => {
    const docs = render();
    const configMap = obj(byKind(docs, 'ConfigMap')[0].data, 'data');
    expect(configMap).toMatchObject({ BATON_BIND: '0.0.0.0', BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: 'baton-admin' });
    expect(configMap.BATON_ALLOWED_HOSTS).toBeUndefined();
    const env = arr(podTemplate(docs).container.env, 'env').map((e) => obj(e, 'env entry'));
    const ref = obj(obj(env.find((e) => e.name === 'BATON_ADMIN_KEY_SECRET')?.valueFrom, 'valueFrom').secretKeyRef, 'secretKeyRef');
    expect(ref).toEqual({ name: 'baton-admin-key', key: 'token' });
    const secret = byKind(docs, 'Secret').find((d) => obj(d.metadata, 'metadata').name === 'baton-admin-key');
    const value = Buffer.from(String(obj(secret?.data, 'data').token), 'base64').toString();
    expect(value).toMatch(/^[A-Za-z0-9]{48}$/);
    // A second render (a new install) draws another secret; an installed release keeps its own through lookup.
    const again = byKind(render(), 'Secret').find((d) => obj(d.metadata, 'metadata').name === 'baton-admin-key');
    expect(obj(again?.data, 'data').token).not.toBe(obj(secret?.data, 'data').token);
  });

  test('an existing Secret replaces the generated admin key; CORS origins go to BATON_CORS_ORIGINS', () => {
    const docs = render(['auth.existingSecret=ops-admin', 'auth.existingSecretKey=value', 'auth.adminKeyId=ops', 'auth.corsOrigins=https://ui.example.com']);
    expect(byKind(docs, 'Secret').map((d) => obj(d.metadata, 'metadata').name)).not.toContain('baton-admin-key');
    const env = arr(podTemplate(docs).container.env, 'env').map((e) => obj(e, 'env entry'));
    expect(obj(obj(env.find((e) => e.name === 'BATON_ADMIN_KEY_SECRET')?.valueFrom, 'valueFrom').secretKeyRef, 'ref')).toEqual({
      name: 'ops-admin',
      key: 'value',
    });
    expect(obj(byKind(docs, 'ConfigMap')[0].data, 'data')).toMatchObject({ BATON_ADMIN_KEY_ID: 'ops', BATON_CORS_ORIGINS: 'https://ui.example.com' });
  });

  test('auth.enabled=false says so: BATON_AUTH off, no admin key, and the Host check lists the Service names', () => {
    const docs = render(['auth.enabled=false', 'auth.allowedHosts=baton.example.com']);
    const configMap = obj(byKind(docs, 'ConfigMap')[0].data, 'data');
    expect(configMap.BATON_AUTH).toBe('off');
    expect(configMap.BATON_ADMIN_KEY_ID).toBeUndefined();
    expect(configMap.BATON_ALLOWED_HOSTS).toBe('baton,baton.work,baton.work.svc,baton.work.svc.cluster.local,baton.example.com');
    expect(byKind(docs, 'Secret').map((d) => obj(d.metadata, 'metadata').name)).not.toContain('baton-admin-key');
    const env = arr(podTemplate(docs).container.env, 'env').map((e) => obj(e, 'env entry'));
    expect(env.some((e) => e.name === 'BATON_ADMIN_KEY_SECRET')).toBe(false);
  });

  test('REDIS_URL takes the password by $(REDIS_PASSWORD) expansion, defined before it', () => {
    const env = arr(podTemplate(render()).container.env, 'env').map((e) => obj(e, 'env entry'));
    const names = env.map((e) => e.name);
    expect(names.indexOf('REDIS_PASSWORD')).toBeLessThan(names.indexOf('REDIS_URL'));
    expect(env.find((e) => e.name === 'REDIS_URL')?.value).toBe('redis://:$(REDIS_PASSWORD)@redis-master:6379/0');
    const noAuth = arr(podTemplate(render(['redis.auth.enabled=false'])).container.env, 'env').map((e) => obj(e, 'e'));
    expect(noAuth.find((e) => e.name === 'REDIS_URL')?.value).toBe('redis://redis-master:6379/0');
    expect(noAuth.some((e) => e.name === 'REDIS_PASSWORD')).toBe(false);
  });

  test('autoscaling renders an autoscaling/v2 HPA and leaves replicas to it', () => {
    const docs = render(['autoscaling.enabled=true']);
    const hpa = byKind(docs, 'HorizontalPodAutoscaler');
    expect(hpa.map((h) => h.apiVersion)).toEqual(['autoscaling/v2']);
    expect(obj(byKind(docs, 'Deployment')[0].spec, 'spec').replicas).toBeUndefined();
    expect(obj(byKind(render(), 'Deployment')[0].spec, 'spec').replicas).toBe(2);
  });

  test('without Dapr the pods get no dapr.io annotations and no Dapr resources are rendered', () => {
    const docs = render(['dapr.enabled=false', 'dapr.components.enabled=false']);
    const annotations = obj(podTemplate(docs).meta.annotations, 'annotations');
    expect(Object.keys(annotations).filter((k) => k.startsWith('dapr.io/'))).toEqual([]);
    expect(docs.filter((d) => String(d.apiVersion).startsWith('dapr.io/'))).toEqual([]);
  });
});
