/** The offline manifest checks of test/support/k8s-schemas.ts, on small inputs of our own. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  crdToJsonSchema,
  daprAnnotationProblems,
  goDurationSeconds,
  loadCrdValidators,
  manifestProblems,
  objectMetaProblems,
  parseSidecarAnnotations,
} from '../../support/k8s-schemas';
import { tempDir } from '../../support/temp-dirs';

// A CRD written for this test in the shape controller-gen emits.
const widgetCrd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
spec:
  group: example.io
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: { type: string }
            kind: { type: string }
            metadata: { type: object }
            spec:
              type: object
              required: [size]
              properties:
                size: { type: integer, format: int32 }
                port: { x-kubernetes-int-or-string: true }
                note: { type: string, nullable: true }
                extra: { type: object, x-kubernetes-preserve-unknown-fields: true, properties: { known: { type: string } } }
                value: { x-kubernetes-preserve-unknown-fields: true, description: anything }
`;

describe('Kubernetes and Dapr manifest checks', () => {
  const dir = tempDir('crds-');
  writeFileSync(path.join(dir, 'widgets.yaml'), widgetCrd);
  const crds = loadCrdValidators(dir);
  const widget = (spec: Record<string, unknown>) => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

  test('CRD schemas: declared fields typed, undeclared ones refused unless preserved, int-or-string and nullable honoured', () => {
    expect([...crds.keys()]).toEqual(['example.io/v1 Widget']);
    expect(manifestProblems(widget({ size: 1, port: 'http', note: null, extra: { any: 1 }, value: [1] }), crds)).toEqual([]);
    expect(manifestProblems(widget({ size: 1, port: 8080 }), crds)).toEqual([]);
    expect(manifestProblems(widget({ size: '1' }), crds)).toEqual([expect.stringContaining('must be integer')]);
    expect(manifestProblems(widget({ size: 1, sise: 2 }), crds)).toEqual([expect.stringContaining('"additionalProperty":"sise"')]);
    expect(manifestProblems({ ...widget({ size: 1 }), status: {} }, crds)).toEqual([expect.stringContaining('"additionalProperty":"status"')]);
    expect(manifestProblems(widget({}), crds)).toEqual([expect.stringContaining('"missingProperty":"size"')]);
    expect(crdToJsonSchema({ type: 'object', description: 'x', properties: { a: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
    });
  });

  test('built-in kinds go through the Kubernetes schemas; unknown kinds have none', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { A: '1' } };
    expect(manifestProblems(cm, crds)).toEqual([]);
    expect(manifestProblems({ ...cm, data: { A: 1 } }, crds)).toEqual([expect.stringContaining('must be string')]);
    expect(manifestProblems({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' } }, crds)).toEqual(['no schema for batch/v1 Job']);
  });

  test('names, namespaces, label and annotation keys follow apimachinery', () => {
    const meta = (kind: string, metadata: Record<string, unknown>) => objectMetaProblems({ kind, metadata });
    expect(
      meta('ConfigMap', { name: 'a.b-c', namespace: 'ns', labels: { 'app.kubernetes.io/name': 'x', k: '' }, annotations: { 'dapr.io/app-id': 'x' } }),
    ).toEqual([]);
    expect(meta('ConfigMap', { name: 'A' })).toHaveLength(1);
    expect(meta('Service', { name: 'a.b' })).toEqual([expect.stringContaining('DNS-1035')]);
    expect(meta('Service', { name: 'x'.repeat(64) })).toHaveLength(1);
    expect(meta('ConfigMap', { name: 'a', namespace: 'a.b' })).toHaveLength(1);
    expect(meta('ConfigMap', { name: 'a', labels: { 'a/b/c': 'x', ok: '-bad' } })).toHaveLength(2);
    expect(meta('ConfigMap', { name: 'a', annotations: { 'Bad_Prefix/x': '1' } })).toHaveLength(1);
  });

  // Written in the form of the struct of Dapr's pkg/injector/patcher/sidecar.go.
  const sidecarGo = [
    'type SidecarConfig struct {',
    '\tEnabled                 bool    `annotation:"dapr.io/enabled"`',
    '\tAppPort                 int32   `annotation:"dapr.io/app-port"`',
    '\tAppMaxConcurrency       *int    `annotation:"dapr.io/app-max-concurrency"`',
    '\tSidecarCPULimit         string  `annotation:"dapr.io/sidecar-cpu-limit"`',
    '\tBlockShutdownDuration   *string `annotation:"dapr.io/block-shutdown-duration"`',
    '\tLogLevel                string  `annotation:"dapr.io/log-level" default:"info"`',
    '\tpod *corev1.Pod',
    '}',
  ].join('\n');
  const types = parseSidecarAnnotations(sidecarGo);

  test('the injector table: keys and Go types from the struct tags', () => {
    expect(Object.fromEntries(types)).toEqual({
      'dapr.io/enabled': 'bool',
      'dapr.io/app-port': 'int32',
      'dapr.io/app-max-concurrency': '*int',
      'dapr.io/sidecar-cpu-limit': 'string',
      'dapr.io/block-shutdown-duration': '*string',
      'dapr.io/log-level': 'string',
    });
  });

  test('dapr.io annotations: known keys, values their types parse', () => {
    const good = {
      'dapr.io/enabled': 'true',
      'dapr.io/app-port': '8080',
      'dapr.io/sidecar-cpu-limit': '500m',
      'dapr.io/block-shutdown-duration': '1m30s',
      other: 'x',
    };
    expect(daprAnnotationProblems(good, types)).toEqual([]);
    expect(daprAnnotationProblems({ 'dapr.io/enabled': 'yes' }, types)).toEqual([expect.stringContaining('"true" or "false"')]);
    expect(daprAnnotationProblems({ 'dapr.io/app-port': '80a' }, types)).toEqual([expect.stringContaining('is not a int32')]);
    expect(daprAnnotationProblems({ 'dapr.io/app-port': '4294967296' }, types)).toHaveLength(1);
    expect(daprAnnotationProblems({ 'dapr.io/app-max-concurrency': 8 }, types)).toEqual([expect.stringContaining('not a string')]);
    expect(daprAnnotationProblems({ 'dapr.io/block-shutdown-duration': '15' }, types)).toEqual([expect.stringContaining('Go duration')]);
    expect(daprAnnotationProblems({ 'dapr.io/sidecar-cpu-limit': '1 core' }, types)).toEqual([expect.stringContaining('quantity')]);
    expect(daprAnnotationProblems({ 'dapr.io/app-prot': '8080' }, types)).toEqual([expect.stringContaining('not an annotation')]);
  });

  test('Go durations in seconds', () => {
    expect(goDurationSeconds('15s')).toBe(15);
    expect(goDurationSeconds('1m30s')).toBe(90);
    expect(goDurationSeconds('1500ms')).toBe(1.5);
    expect(() => goDurationSeconds('15')).toThrow('not a Go duration');
  });
});
