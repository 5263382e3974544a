/**
 * Offline checks of rendered Kubernetes manifests, as the API server would make them:
 * - built-in kinds against the Kubernetes OpenAPI schemas compiled into kubernetes-models, and
 *   decoded strictly into their Go types by our k8s-schemas-strict command (unknown and duplicate
 *   fields, which those schemas let through);
 * - Dapr custom resources against the openAPIV3Schema of Dapr's own CRDs, with unknown fields
 *   rejected as the API server's strict field validation (kubectl's default) rejects them;
 * - object names and labels by apimachinery's rules, which neither schema carries;
 * - dapr.io/* pod annotations against the sidecar injector's table of keys and Go types.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

export type Manifest = Record<string, unknown>;
type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** "apps/v1 Deployment": how both tables below are keyed. */
export const kindKey = (m: Manifest): string => `${String(m.apiVersion)} ${String(m.kind)}`;
export const describeManifest = (m: Manifest): string => `${String(m.kind)}/${String(isObj(m.metadata) ? m.metadata.name : '?')}`;

/** The built-in kinds a chart may render; anything else has no schema here and is reported. */
const builtinKinds: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'v1 ServiceAccount': ServiceAccount,
};

/**
 * A CRD's openAPIV3Schema as JSON Schema. Objects that declare properties get
 * additionalProperties false unless they preserve unknown fields: the API server prunes (or, under
 * strict field validation, refuses) fields a structural schema does not declare.
 */
export function crdToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(crdToJsonSchema);
  if (!isObj(node)) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    // CEL rules and list/map hints cannot be checked by a JSON Schema validator; descriptions are noise.
    if (k === 'description' || k === 'x-kubernetes-validations' || k.startsWith('x-kubernetes-list') || k.startsWith('x-kubernetes-map')) continue;
    if (k === 'properties' && isObj(v)) out.properties = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, crdToJsonSchema(s)]));
    else if (k !== 'nullable' && !k.startsWith('x-kubernetes-')) out[k] = crdToJsonSchema(v);
  }
  if (node['x-kubernetes-int-or-string'] === true) {
    delete out.type;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (out.properties !== undefined && out.additionalProperties === undefined && !preserve) out.additionalProperties = false;
  return out;
}

/** Validators of every served version of every CRD in a directory, keyed like kindKey. */
export function loadCrdValidators(dir: string): Map<string, ValidateFunction> {
  // strict off: the schemas carry OpenAPI formats (int32, int64) that JSON Schema does not define.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validators = new Map<string, ValidateFunction>();
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f))) {
    for (const doc of parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as unknown;
      if (!isObj(crd) || crd.kind !== 'CustomResourceDefinition' || !isObj(crd.spec)) continue;
      const { group, names, versions } = crd.spec as { group: string; names: { kind: string }; versions: Schema[] };
      for (const v of versions) {
        const schema = isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
        if (v.served === false || !isObj(schema)) continue;
        validators.set(`${group}/${String(v.name)} ${names.kind}`, ajv.compile(crdToJsonSchema(schema) as Schema));
      }
    }
  }
  return validators;
}

// apimachinery's pkg/util/validation: DNS-1123 subdomain and label, DNS-1035 label, qualified names.
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'has more than one "/"';
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined && (prefix.length > 253 || !dns1123Subdomain.test(prefix))) return 'prefix is not a DNS-1123 subdomain';
  if (name.length > 63 || !qualifiedNamePart.test(name)) return 'name part is not a qualified name (63 characters, alphanumeric ends)';
  return undefined;
}

/** What the API server's ObjectMeta validation would refuse: names, namespace, label and annotation keys. */
export function objectMetaProblems(m: Manifest): string[] {
  const meta = isObj(m.metadata) ? m.metadata : {};
  const problems: string[] = [];
  const name = String(meta.name ?? '');
  // Services need a DNS-1035 label (they become DNS names); most other kinds a DNS-1123 subdomain.
  const serviceLike = m.kind === 'Service';
  if (serviceLike ? name.length > 63 || !dns1035Label.test(name) : name.length > 253 || !dns1123Subdomain.test(name)) {
    problems.push(`metadata.name "${name}" is not a valid ${serviceLike ? 'DNS-1035 label' : 'DNS-1123 subdomain'}`);
  }
  if (meta.namespace !== undefined && (String(meta.namespace).length > 63 || !dns1123Label.test(String(meta.namespace)))) {
    problems.push(`metadata.namespace "${String(meta.namespace)}" is not a DNS-1123 label`);
  }
  problems.push(...labelAndAnnotationProblems(meta, 'metadata'));
  return problems;
}

/** Label keys and values, annotation keys, of an ObjectMeta (also used for pod templates). */
export function labelAndAnnotationProblems(meta: Record<string, unknown>, where: string): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(isObj(meta.labels) ? meta.labels : {})) {
    const p = qualifiedNameProblem(key);
    if (p) problems.push(`${where}.labels key "${key}" ${p}`);
    const v = String(value);
    if (v !== '' && (v.length > 63 || !qualifiedNamePart.test(v))) problems.push(`${where}.labels["${key}"] value "${v}" is not a valid label value`);
  }
  for (const key of Object.keys(isObj(meta.annotations) ? meta.annotations : {})) {
    const p = qualifiedNameProblem(key);
    if (p) problems.push(`${where}.annotations key "${key}" ${p}`);
  }
  return problems;
}

/** Everything the API server would refuse in one manifest; empty when it would be accepted. */
export function manifestProblems(m: Manifest, crds: Map<string, ValidateFunction>): string[] {
  const problems = objectMetaProblems(m);
  const key = kindKey(m);
  const Builtin = builtinKinds[key];
  const crd = crds.get(key);
  if (Builtin) {
    try {
      new Builtin(m as never).validate();
    } catch (err) {
      problems.push(`schema: ${(err as Error).message}`);
    }
  } else if (crd) {
    if (!crd(m)) problems.push(...(crd.errors ?? []).map((e) => `schema: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`));
  } else {
    problems.push(`no schema for ${key}`);
  }
  return problems;
}

/**
 * Problems the strict decoder (test/support/k8s-schemas-strict, built by scripts/services/helm.sh)
 * finds in multi-document YAML, as "Kind/name: error". Kinds it does not register (Dapr's) are left
 * to the CRD schemas.
 */
export function strictDecodeProblems(bin: string, yamlText: string): string[] {
  const r = spawnSync(bin, [], { input: yamlText, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${bin} failed: ${r.stderr || r.error?.message}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { kind: string; name: string; error: string })
    .filter((d) => d.error !== '' && d.error !== 'unregistered')
    .map((d) => `${d.kind}/${d.name}: ${d.error}`);
}

/** A dapr.io/* annotation the injector reads: its Go field type ("int32", "*string", "bool", ...). */
export type AnnotationTypes = Map<string, string>;

/**
 * The injector's annotation table, from the struct tags of SidecarConfig in the dapr module's
 * pkg/injector/patcher/sidecar.go (`Field type \`annotation:"dapr.io/..."\``).
 */
export function parseSidecarAnnotations(goSource: string): AnnotationTypes {
  const types: AnnotationTypes = new Map();
  for (const m of goSource.matchAll(/^\s*\w+\s+(\*?[\w.]+)\s+`[^`]*annotation:"(dapr\.io\/[\w-]+)"[^`]*`/gm)) types.set(m[2], m[1]);
  return types;
}

// daprd parses these *string annotations as Go durations (fs.DurationVar in cmd/daprd/options/options.go).
const durationAnnotations = new Set(['dapr.io/block-shutdown-duration', 'dapr.io/actors-disseminate-timeout']);
// ... and these as Kubernetes quantities (resource.ParseQuantity in the injector, bytesize in daprd).
const quantityAnnotations = /^dapr\.io\/(sidecar-(cpu|memory)-(request|limit)|max-body-size|read-buffer-size)$/;
const goDuration = /^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;
const quantity = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** Every dapr.io/* annotation is one the injector knows, with a value its type parses. */
export function daprAnnotationProblems(annotations: Record<string, unknown>, types: AnnotationTypes): string[] {
  const problems: string[] = [];
  for (const [key, raw] of Object.entries(annotations)) {
    if (!key.startsWith('dapr.io/')) continue;
    const type = types.get(key);
    const value = String(raw);
    if (typeof raw !== 'string') problems.push(`${key} is not a string`);
    if (type === undefined) {
      problems.push(`${key} is not an annotation the Dapr sidecar injector reads`);
      continue;
    }
    const base = type.replace(/^\*/, '');
    // The injector takes any other bool text as false (kit's IsTruthy): only these two say what is meant.
    if (base === 'bool' && value !== 'true' && value !== 'false') problems.push(`${key}: "${value}" is not "true" or "false"`);
    if (/^u?int(8|16|32|64)?$/.test(base)) {
      const bits = Number(/\d+$/.exec(base)?.[0] ?? 64);
      if (!/^-?\d+$/.test(value) || Math.abs(Number(value)) >= 2 ** (bits - 1)) problems.push(`${key}: "${value}" is not a ${base}`);
    }
    if (durationAnnotations.has(key) && !goDuration.test(value)) problems.push(`${key}: "${value}" is not a Go duration`);
    if (quantityAnnotations.test(key) && !quantity.test(value)) problems.push(`${key}: "${value}" is not a Kubernetes quantity`);
  }
  return problems;
}

/** Seconds of a Go duration string ("1m30s" -> 90). */
export function goDurationSeconds(value: string): number {
  if (!goDuration.test(value)) throw new Error(`not a Go duration: ${value}`);
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of value.matchAll(/([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * unit[m[2]];
  return total;
}
