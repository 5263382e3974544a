/**
 * charts/baton through a real helm (scripts/services/helm.sh): `helm lint --strict` and
 * `helm template` with the default, production-like and development values, every rendered object
 * checked offline as the API server would (Kubernetes schemas and strict decoding, Dapr's CRD
 * schemas, names and labels), the dapr.io annotations against the injector's own table, and the
 * chart's guards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { engineSuite } from '../support/real-engines';
import {
  type AnnotationTypes,
  type Manifest,
  daprAnnotationProblems,
  describeManifest,
  goDurationSeconds,
  labelAndAnnotationProblems,
  loadCrdValidators,
  manifestProblems,
  parseSidecarAnnotations,
  strictDecodeProblems,
} from '../support/k8s-schemas';

const root = path.resolve(__dirname, '../..');
const helmBin = process.env.BATON_HELM_BIN;
const crdDir = process.env.BATON_DAPR_CRDS_DIR;
const sidecarGo = process.env.BATON_DAPR_SIDECAR_GO;
const strictBin = process.env.BATON_K8S_STRICT_BIN;

function missing(): string | undefined {
  if (!helmBin || !existsSync(helmBin)) return 'BATON_HELM_BIN is unset or names no file';
  if (!crdDir || !existsSync(path.join(crdDir, 'components.yaml'))) return 'BATON_DAPR_CRDS_DIR holds no Dapr CRDs';
  if (!sidecarGo || !existsSync(sidecarGo)) return "BATON_DAPR_SIDECAR_GO names no copy of Dapr's injector sidecar.go";
  if (!strictBin || !existsSync(strictBin)) return 'BATON_K8S_STRICT_BIN names no strict decoder';
  return undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
function obj(v: unknown, what: string): Obj {
  if (!isObj(v)) throw new Error(`${what} is not a mapping`);
  return v;
}
function arr(v: unknown, what: string): Obj[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not a list`);
  return v.map((e, i) => obj(e, `${what}[${i}]`));
}

function helm(argv: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(helmBin!, argv, { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr || (r.error?.message ?? '') };
}
function renderText(args: string[]): string {
  const r = helm(['template', 'baton', 'charts/baton', '--namespace', 'baton', ...args]);
  if (r.status !== 0) throw new Error(`helm template ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
function render(args: string[]): Manifest[] {
  return parseAllDocuments(renderText(args))
    .map((d) => d.toJS() as unknown)
    .filter(isObj);
}
const byKind = (docs: Manifest[], kind: string): Manifest[] => docs.filter((d) => d.kind === kind);
const one = (docs: Manifest[], kind: string): Manifest => {
  const found = byKind(docs, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0];
};
const nameOf = (m: Manifest): string => String(obj(m.metadata, 'metadata').name);

interface Pod {
  spec: Obj;
  meta: Obj;
  annotations: Record<string, string>;
  labels: Record<string, string>;
  container: Obj;
  env: Obj[];
}
function pod(docs: Manifest[]): Pod {
  const template = obj(obj(one(docs, 'Deployment').spec, 'spec').template, 'template');
  const meta = obj(template.metadata, 'template.metadata');
  const spec = obj(template.spec, 'template.spec');
  const container = arr(spec.containers, 'containers').find((c) => c.name === 'baton');
  if (!container) throw new Error('no baton container');
  return {
    spec,
    meta,
    annotations: obj(meta.annotations ?? {}, 'annotations') as Record<string, string>,
    labels: obj(meta.labels, 'labels') as Record<string, string>,
    container,
    env: arr(container.env ?? [], 'env'),
  };
}
const matches = (selector: unknown, labels: Record<string, string>): boolean =>
  Object.entries(obj(obj(selector, 'selector').matchLabels, 'matchLabels')).every(([k, v]) => labels[k] === v);

/** References between rendered objects that the API server does not check but a rollout needs. */
function crossReferenceProblems(docs: Manifest[]): string[] {
  const problems: string[] = [];
  const p = pod(docs);
  const names = (kind: string) => new Set(byKind(docs, kind).map(nameOf));
  const deploymentSpec = obj(one(docs, 'Deployment').spec, 'spec');
  if (!matches(deploymentSpec.selector, p.labels)) problems.push('Deployment selector does not match its pod template labels');
  problems.push(...labelAndAnnotationProblems(p.meta, 'pod template metadata'));
  const portNames = new Set(arr(p.container.ports ?? [], 'ports').map((x) => x.name));
  for (const svc of byKind(docs, 'Service')) {
    const spec = obj(svc.spec, 'service spec');
    if (!Object.entries(obj(spec.selector, 'service selector')).every(([k, v]) => p.labels[k] === v))
      problems.push(`Service ${nameOf(svc)} selects no Baton pod`);
    for (const port of arr(spec.ports, 'service ports')) {
      if (typeof port.targetPort === 'string' && !portNames.has(port.targetPort)) problems.push(`Service targetPort ${port.targetPort} is no container port`);
    }
  }
  for (const kind of ['PodDisruptionBudget', 'NetworkPolicy']) {
    for (const d of byKind(docs, kind)) {
      const spec = obj(d.spec, `${kind} spec`);
      if (!matches(kind === 'NetworkPolicy' ? spec.podSelector : spec.selector, p.labels)) problems.push(`${kind} ${nameOf(d)} selects no Baton pod`);
    }
  }
  for (const hpa of byKind(docs, 'HorizontalPodAutoscaler')) {
    const ref = obj(obj(hpa.spec, 'hpa spec').scaleTargetRef, 'scaleTargetRef');
    if (ref.kind !== 'Deployment' || !names('Deployment').has(String(ref.name)))
      problems.push(`HPA targets ${String(ref.kind)}/${String(ref.name)}, not the Deployment`);
  }
  for (const from of arr(p.container.envFrom ?? [], 'envFrom')) {
    if (isObj(from.configMapRef) && !names('ConfigMap').has(String(from.configMapRef.name)))
      problems.push(`envFrom names missing ConfigMap ${String(from.configMapRef.name)}`);
  }
  // Secrets the chart renders must hold the keys that are read from them (others are the user's).
  const secrets = new Map(byKind(docs, 'Secret').map((s) => [nameOf(s), obj(s.data ?? {}, 'data')]));
  const secretRefs = p.env.flatMap((e) => (isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) ? [e.valueFrom.secretKeyRef] : []));
  for (const name of ['dapr.io/app-token-secret', 'dapr.io/api-token-secret']) {
    if (p.annotations[name]) secretRefs.push({ name: p.annotations[name], key: 'token' });
  }
  for (const ref of secretRefs) {
    const data = secrets.get(String(ref.name));
    if (data && data[String(ref.key)] === undefined) problems.push(`Secret ${String(ref.name)} has no key ${String(ref.key)}`);
  }
  const sa = String(p.spec.serviceAccountName ?? 'default');
  if (byKind(docs, 'ServiceAccount').length > 0 && !names('ServiceAccount').has(sa)) problems.push(`serviceAccountName ${sa} is not rendered`);
  const config = p.annotations['dapr.io/config'];
  if (config && !names('Configuration').has(config)) problems.push(`dapr.io/config names ${config}, which is not rendered`);
  return problems;
}

const variants: Record<string, string[]> = {
  default: [],
  production: ['-f', 'charts/baton/values-production.yaml'],
  development: ['-f', 'charts/baton/values-dev.yaml'],
  'existing token Secrets, no Dapr components': [
    '--set',
    'dapr.apiToken.existingSecret=ops-dapr-api',
    '--set',
    'dapr.appToken.existingSecret=ops-app-api',
    '--set',
    'dapr.components.enabled=false',
    '--set',
    'networkPolicy.apiFrom[0].podSelector.matchLabels.role=worker',
  ],
  'native sidecar': ['--set', 'dapr.nativeSidecar=true', '--set', 'terminationGracePeriodSeconds=75'],
  'Grafana dashboard': [
    '--set',
    'grafanaDashboard.enabled=true',
    '--set',
    'grafanaDashboard.namespace=monitoring',
    '--set',
    'grafanaDashboard.annotations.grafana_folder=Baton',
  ],
  'embedded profile without Dapr': [
    '--set',
    'profile=embedded',
    '--set',
    'replicaCount=1',
    '--set',
    'dapr.enabled=false',
    '--set',
    'dapr.components.enabled=false',
  ],
};

engineSuite('helm', missing())('charts/baton rendered by helm and checked against the Kubernetes and Dapr schemas', () => {
  let crds: Map<string, ValidateFunction>;
  let annotationTypes: AnnotationTypes;
  beforeAll(() => {
    crds = loadCrdValidators(crdDir!);
    annotationTypes = parseSidecarAnnotations(readFileSync(sidecarGo!, 'utf8'));
  });

  test('the Dapr CRDs and the injector table were read', () => {
    for (const kind of ['Component', 'Configuration', 'Resiliency', 'Subscription']) expect(crds.has(`dapr.io/v1alpha1 ${kind}`)).toBe(true);
    expect(crds.has('dapr.io/v2alpha1 Subscription')).toBe(true);
    expect(annotationTypes.get('dapr.io/app-port')).toBe('int32');
    expect(annotationTypes.get('dapr.io/block-shutdown-duration')).toBe('*string');
    expect(annotationTypes.size).toBeGreaterThan(50);
  });

  test.each(Object.entries(variants))('helm lint --strict passes (%s values)', (_name, args) => {
    const r = helm(['lint', '--strict', 'charts/baton', ...args]);
    expect(r.stderr + r.stdout).toContain('0 chart(s) failed');
    expect(r.status).toBe(0);
  });

  test.each(Object.entries(variants))('every object rendered with the %s values would be accepted, and they fit together', (_name, args) => {
    const text = renderText(args);
    const docs = parseAllDocuments(text)
      .map((d) => d.toJS() as unknown)
      .filter(isObj);
    expect(docs.length).toBeGreaterThanOrEqual(5);
    const problems = docs.flatMap((d) => manifestProblems(d, crds).map((p) => `${describeManifest(d)}: ${p}`));
    problems.push(...strictDecodeProblems(strictBin!, text));
    problems.push(...daprAnnotationProblems(pod(docs).annotations, annotationTypes), ...crossReferenceProblems(docs));
    expect(problems).toEqual([]);
  });

  test('the pod carries the Dapr annotations Baton needs, with the values it needs', () => {
    const docs = render([]);
    const { annotations: a, container } = pod(docs);
    const port = arr(container.ports, 'ports')[0];
    expect(a['dapr.io/enabled']).toBe('true');
    expect(a['dapr.io/app-id']).toBe('baton');
    expect(a['dapr.io/app-port']).toBe(String(port.containerPort));
    expect(a['dapr.io/app-protocol']).toBe('http');
    expect(a['dapr.io/enable-app-health-check']).toBe('true');
    // Baton's app channel answers /healthz (503 while it drains); /health never reports a drain.
    expect(a['dapr.io/app-health-check-path']).toBe('/healthz');
    // daprd refuses a probe timeout longer than the interval.
    expect(Number(a['dapr.io/app-health-probe-timeout'])).toBeLessThanOrEqual(Number(a['dapr.io/app-health-probe-interval']) * 1000);
    expect(goDurationSeconds(a['dapr.io/block-shutdown-duration'])).toBeGreaterThan(0);
    expect(Number(a['dapr.io/graceful-shutdown-seconds'])).toBeGreaterThan(0);
    expect(a['dapr.io/config']).toBe(nameOf(one(docs, 'Configuration')));
    expect(a['dapr.io/app-max-concurrency']).toBeUndefined();
    for (const key of ['dapr.io/app-token-secret', 'dapr.io/api-token-secret']) expect(a[key]).toBeTruthy();
  });

  test('both Dapr tokens are on by default: random Secrets the sidecar and Baton read under "token"', () => {
    const docs = render([]);
    const { annotations: a, env } = pod(docs);
    const secrets = new Map(byKind(docs, 'Secret').map((s) => [nameOf(s), obj(s.data, 'data')]));
    for (const [annotation, variable] of [
      ['dapr.io/app-token-secret', 'APP_API_TOKEN'],
      ['dapr.io/api-token-secret', 'DAPR_API_TOKEN'],
    ]) {
      const token = Buffer.from(String(secrets.get(a[annotation])?.token), 'base64').toString();
      expect(token).toMatch(/^[A-Za-z0-9]{48}$/);
      const ref = obj(obj(env.find((e) => e.name === variable)?.valueFrom, variable).secretKeyRef, 'secretKeyRef');
      expect(ref).toEqual({ name: a[annotation], key: 'token' });
    }
    expect(a['dapr.io/app-token-secret']).not.toBe(a['dapr.io/api-token-secret']);
    // A second render (a new install) draws new tokens; an upgrade keeps them through `lookup`.
    const again = new Map(byKind(render([]), 'Secret').map((s) => [nameOf(s), obj(s.data, 'data').token]));
    expect(again.get(a['dapr.io/app-token-secret'])).not.toBe(secrets.get(a['dapr.io/app-token-secret'])?.token);
    // Existing Secrets replace the generated ones.
    const own = render(['--set', 'dapr.appToken.existingSecret=ops-app-api']);
    expect(pod(own).annotations['dapr.io/app-token-secret']).toBe('ops-app-api');
    // The Dapr API token and the first admin key stay generated.
    expect(byKind(own, 'Secret').map(nameOf).sort()).toEqual(['baton-admin-key', 'baton-dapr-api-token', 'baton-secrets-key']);
  });

  test('the pod outlives the shutdown of Baton and of its sidecar; readiness follows the drain', () => {
    for (const name of ['default', 'production', 'development', 'native sidecar']) {
      const docs = render(variants[name]);
      const { spec, annotations: a, container } = pod(docs);
      const config = obj(one(docs, 'ConfigMap').data, 'data');
      const grace = Number(spec.terminationGracePeriodSeconds);
      const shutdown = Number(config.BATON_SHUTDOWN_TIMEOUT_MS) / 1000;
      const drain = Number(config.BATON_DAPR_DRAIN_MS) / 1000;
      const block = goDurationSeconds(a['dapr.io/block-shutdown-duration']);
      expect(grace).toBeGreaterThan(shutdown + block);
      expect(grace).toBeGreaterThan(block + Number(a['dapr.io/graceful-shutdown-seconds']));
      expect(block).toBeGreaterThanOrEqual(drain + shutdown);
      // Baton exits at the latest drain + 3 x its shutdown timeout after SIGTERM (src/exit-deadline.ts).
      expect(grace).toBeGreaterThan(drain + 3 * shutdown);
      // A native sidecar stops only after Baton has exited: one grace period for both.
      if (a['dapr.io/enable-native-sidecar'] === 'true')
        expect(grace).toBeGreaterThan(drain + 3 * shutdown + block + Number(a['dapr.io/graceful-shutdown-seconds']));
      // daprd notices the drain (threshold x interval) before it ends.
      expect(Number(a['dapr.io/app-health-threshold']) * Number(a['dapr.io/app-health-probe-interval'])).toBeLessThan(drain);
      const probe = (name: string) => obj(obj(container[name], name).httpGet, `${name}.httpGet`).path;
      expect(probe('readinessProbe')).toBe('/healthz');
      expect(probe('livenessProbe')).toBe('/health');
      expect(probe('startupProbe')).toBe('/health');
    }
    const embedded = pod(render(variants['embedded profile without Dapr'])).container;
    expect(obj(obj(embedded.readinessProbe, 'readinessProbe').httpGet, 'httpGet').path).toBe('/health');
  });

  test('the NetworkPolicy opens the API port, the sidecar port only to Dapr sidecars, and nothing else', () => {
    const docs = render([]);
    const policy = obj(one(docs, 'NetworkPolicy').spec, 'spec');
    expect(policy.policyTypes).toEqual(['Ingress']);
    const rules = arr(policy.ingress, 'ingress');
    const ports = rules.map((r) => arr(r.ports, 'ports').map((p) => p.port));
    const { annotations: a } = pod(docs);
    expect(ports).toEqual([['http'], [Number(a['dapr.io/internal-grpc-port'])], [Number(a['dapr.io/metrics-port'])]]);
    expect(rules[1].from).toEqual([{ namespaceSelector: {}, podSelector: { matchLabels: { 'dapr.io/sidecar-injected': 'true' } } }]);
    const production = arr(obj(one(render(variants.production), 'NetworkPolicy').spec, 'spec').ingress, 'ingress');
    expect(arr(production[0].from, 'from').length).toBe(2);
  });

  test('Cassandra: NetworkTopologyStrategy in the local DC by default and in production; factor 1 only in the dev values', () => {
    const config = (args: string[]) => obj(one(render(args), 'ConfigMap').data, 'data');
    const byDefault = config([]);
    expect(byDefault.CASSANDRA_REPLICATION).toBe(`${String(byDefault.CASSANDRA_LOCAL_DC)}:3`);
    const production = config(variants.production);
    expect(production.CASSANDRA_REPLICATION).toBe('dc1:3');
    expect(production.CASSANDRA_LOCAL_DC).toBe('dc1');
    expect(config(variants.development).CASSANDRA_REPLICATION).toBe('1');
  });

  test("BATON_SECRETS_KEY comes from a Secret: the chart's own holds 32 random bytes in base64; an existing one replaces it", () => {
    const docs = render([]);
    const secrets = new Map(byKind(docs, 'Secret').map((s) => [nameOf(s), obj(s.data, 'data')]));
    const key = Buffer.from(Buffer.from(String(secrets.get('baton-secrets-key')?.key), 'base64').toString(), 'base64');
    expect(key.length).toBe(32);
    const ref = obj(obj(pod(docs).env.find((e) => e.name === 'BATON_SECRETS_KEY')?.valueFrom, 'BATON_SECRETS_KEY').secretKeyRef, 'secretKeyRef');
    expect(ref).toEqual({ name: 'baton-secrets-key', key: 'key' });
    const own = render(['--set', 'secretsKey.existingSecret=ops-secrets', '--set', 'secretsKey.existingSecretKey=aes']);
    expect(byKind(own, 'Secret').map(nameOf)).not.toContain('baton-secrets-key');
    expect(obj(obj(pod(own).env.find((e) => e.name === 'BATON_SECRETS_KEY')?.valueFrom, 'v').secretKeyRef, 'r')).toEqual({ name: 'ops-secrets', key: 'aes' });
  });

  test("the object store: no bucket by default (each pod's /data); a user's bucket, endpoint, region and key Secret rendered into the pod's env", () => {
    const byDefault = render([]);
    const defaultConfig = obj(one(byDefault, 'ConfigMap').data, 'data');
    expect(Object.keys(defaultConfig).filter((k) => k.startsWith('BATON_S3_') || k === 'BATON_OBJECT_STORE')).toEqual([]);
    expect(pod(byDefault).env.map((e) => e.name)).not.toContain('BATON_S3_ACCESS_KEY_ID');
    const docs = render([
      ...['--set', 'objectStore.bucket=payloads', '--set', 'objectStore.endpoint=http://minio.storage:9000', '--set', 'objectStore.region=eu-west-3'],
      ...['--set', 'objectStore.existingSecret=ops-s3', '--set', 'objectStore.accessKeyIdKey=id', '--set', 'objectStore.secretAccessKeyKey=key'],
    ]);
    expect(obj(one(docs, 'ConfigMap').data, 'data')).toMatchObject({
      BATON_OBJECT_STORE: 's3',
      BATON_S3_BUCKET: 'payloads',
      BATON_S3_ENDPOINT: 'http://minio.storage:9000',
      BATON_S3_REGION: 'eu-west-3',
    });
    const ref = (name: string) => obj(obj(pod(docs).env.find((e) => e.name === name)?.valueFrom, name).secretKeyRef, 'secretKeyRef');
    expect(ref('BATON_S3_ACCESS_KEY_ID')).toEqual({ name: 'ops-s3', key: 'id' });
    expect(ref('BATON_S3_SECRET_ACCESS_KEY')).toEqual({ name: 'ops-s3', key: 'key' });
    // Without a Secret: the AWS SDK's own chain (a pod identity), no key variables.
    const chain = render(['--set', 'objectStore.bucket=payloads']);
    expect(pod(chain).env.map((e) => e.name)).not.toContain('BATON_S3_ACCESS_KEY_ID');
    expect(obj(one(chain, 'ConfigMap').data, 'data').BATON_S3_BUCKET).toBe('payloads');
  });

  test('the production values: three replicas at least, HPA, PDB, resources, every credential from a Secret', () => {
    const docs = render(variants.production);
    const hpa = obj(one(docs, 'HorizontalPodAutoscaler').spec, 'spec');
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(3);
    expect(obj(one(docs, 'Deployment').spec, 'spec').replicas).toBeUndefined();
    expect(obj(one(docs, 'PodDisruptionBudget').spec, 'spec').maxUnavailable).toBe(1);
    const { container, env } = pod(docs);
    const resources = obj(container.resources, 'resources');
    expect(Object.keys(obj(resources.requests, 'requests')).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(obj(resources.limits, 'limits')).sort()).toEqual(['cpu', 'memory']);
    for (const name of [
      'CASSANDRA_USERNAME',
      'CASSANDRA_PASSWORD',
      'ELASTICSEARCH_USERNAME',
      'ELASTICSEARCH_PASSWORD',
      'REDIS_PASSWORD',
      'APP_API_TOKEN',
      'DAPR_API_TOKEN',
      'BATON_SECRETS_KEY',
      'BATON_S3_ACCESS_KEY_ID',
      'BATON_S3_SECRET_ACCESS_KEY',
    ]) {
      const entry = env.find((e) => e.name === name);
      expect([name, isObj(entry?.valueFrom) && isObj(entry.valueFrom.secretKeyRef)]).toEqual([name, true]);
    }
  });

  test.each([
    ['an empty replication (SimpleStrategy factor 1)', ['--set', 'cassandra.replication='], 'cassandra.replication is empty'],
    ['replicas only outside the local DC', ['--set', 'cassandra.replication=dc2:3'], 'has no replicas in cassandra.localDc'],
    ['a grace period shorter than the longest Baton takes to exit', ['--set', 'terminationGracePeriodSeconds=34'], 'the longest Baton takes to exit'],
    [
      'a grace period shorter than the sidecar stop',
      ['--set', 'terminationGracePeriodSeconds=36', '--set', 'dapr.gracefulShutdownSeconds=25'],
      'must exceed dapr.blockShutdownSeconds + dapr.gracefulShutdownSeconds',
    ],
    ['a sidecar block shorter than the Baton stop', ['--set', 'dapr.blockShutdownSeconds=5'], 'must cover shutdown.drainSeconds + shutdown.timeoutSeconds'],
    ['a native sidecar with a grace period for one of the two stops', ['--set', 'dapr.nativeSidecar=true'], 'with dapr.nativeSidecar'],
    [
      'a native sidecar on Kubernetes 1.28',
      ['--set', 'dapr.nativeSidecar=true', '--set', 'terminationGracePeriodSeconds=60', '--kube-version', '1.28.0'],
      'needs Kubernetes 1.29',
    ],
    ['a health probe timeout above its interval', ['--set', 'dapr.appHealthCheck.timeoutMilliseconds=1500'], 'must not exceed intervalSeconds'],
  ])('the chart refuses %s', (_what, args, message) => {
    const r = helm(['template', 'baton', 'charts/baton', ...args]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  test('the one-machine components/ pass the Dapr CRD schemas and say what the chart renders', () => {
    const local = new Map(
      readdirSync(path.join(root, 'components'))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [f, obj(parse(readFileSync(path.join(root, 'components', f), 'utf8')), f)]),
    );
    const problems = [...local.values()].flatMap((d) => manifestProblems(d, crds).map((p) => `${describeManifest(d)}: ${p}`));
    expect(problems).toEqual([]);
    // Connection settings differ by design (env secret store there, Kubernetes Secrets here); the rest must not drift.
    const docs = render([]);
    const connection = new Set(['redisHost', 'redisPassword', 'enableTLS']);
    const settings = (c: Obj) => arr(obj(c.spec, 'spec').metadata, 'metadata').filter((e) => !connection.has(String(e.name)));
    for (const file of ['actorstate.yaml', 'pubsub.yaml']) {
      const mine = local.get(file)!;
      const rendered = byKind(docs, 'Component').find((c) => nameOf(c) === nameOf(mine));
      expect([file, settings(obj(rendered, `rendered ${file}`))]).toEqual([file, settings(mine)]);
    }
    expect(obj(one(docs, 'Resiliency').spec, 'spec')).toEqual(obj(local.get('resiliency.yaml')!.spec, 'spec'));
  });

  test('the checks refuse what the API server or the injector would refuse (they are not vacuous)', () => {
    const docs = render([]);
    const mutate = (kind: string, change: (m: Obj) => void): Manifest => {
      const copy = structuredClone(one(docs, kind));
      change(copy);
      return copy;
    };
    const refused = (m: Manifest) => manifestProblems(m, crds);
    // A Component metadata entry indented one level too deep: an unknown field of the spec.
    expect(refused(mutate('Resiliency', (m) => void (obj(m.spec, 'spec').scopes = ['baton'])))).toEqual([expect.stringMatching(/additional properties/)]);
    expect(refused(mutate('Deployment', (m) => void (obj(m.spec, 'spec').replicas = '2')))).toEqual([expect.stringMatching(/replicas must be integer/)]);
    // A container field indented one level too shallow: only the strict decoder sees it.
    const misplaced = mutate('Deployment', (m) => void (pod([m]).spec.env = pod([m]).env));
    expect(refused(misplaced)).toEqual([]);
    expect(strictDecodeProblems(strictBin!, stringify(misplaced))).toEqual([expect.stringContaining('unknown field "spec.template.spec.env"')]);
    expect(refused(mutate('Service', (m) => void (obj(m.metadata, 'metadata').name = '9-baton')))).toEqual([expect.stringMatching(/DNS-1035/)]);
    const bad = {
      ...pod(docs).annotations,
      'dapr.io/app-health-probe-interval': '1s',
      'dapr.io/log-as-json': 'yes',
      'dapr.io/app-healthcheck-path': '/healthz',
    };
    expect(daprAnnotationProblems(bad, annotationTypes)).toHaveLength(3);
  });
});
