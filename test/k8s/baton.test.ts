/**
 * `helm install baton charts/baton` on the local single-node cluster (`npm run services -- kubernetes`):
 * Dapr installed by its own chart with mTLS, Baton's image built from the repository's Dockerfile
 * (`npm run test:k8s` builds and imports it first), Redis in the cluster, Cassandra and Elasticsearch
 * reached through Services (test/k8s/manifests). Proves the chart's wiring on a real kubelet: injected
 * daprd sidecars, the app token guarding the actor routes, and the whole interface suite through the
 * Baton Service with auth on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describeInterface } from '../api/interface-suite';
import { decide, defineLoad, expectAllCompleted, startMany, timeUntilServing, WORKFLOWS, type LoadTarget } from '../support/fault-load';
import { engineSuite } from '../support/real-engines';
import { eventually } from '../support/baton';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';

const kubeconfig = process.env.BATON_KUBECONFIG;
const kubectlBin = process.env.BATON_KUBECTL_BIN;
const helmBin = process.env.BATON_HELM_BIN;
const repo = path.resolve(__dirname, '../..');
const manifests = path.join(__dirname, 'manifests');
const ns = 'baton-k8s';
// The node's address on the cluster bridge: pods reach this process's test servers there.
const NODE_IP = '198.18.0.1';
const release = 'baton';
const imageTag = process.env.BATON_K8S_IMAGE_TAG ?? (JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { version: string }).version;
const nodeImage = `docker.io/library/${/^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(path.join(repo, 'Dockerfile'), 'utf8'))![1]}`;

function missing(): string | undefined {
  if (!kubeconfig || !existsSync(kubeconfig)) return 'BATON_KUBECONFIG is unset or names no file';
  if (!kubectlBin || !existsSync(kubectlBin)) return 'BATON_KUBECTL_BIN is unset or names no file';
  if (!helmBin || !existsSync(helmBin)) return 'BATON_HELM_BIN is unset or names no file';
  return undefined;
}

function run(bin: string, args: string[], input?: string, allowFailure = false): string {
  const r = spawnSync(bin, args, { encoding: 'utf8', input, timeout: 900_000, env: { ...process.env, KUBECONFIG: kubeconfig } });
  if (r.status !== 0 && !allowFailure) throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const kubectl = (args: string[], input?: string) => run(kubectlBin!, args, input);
const helm = (args: string[]) => run(helmBin!, args);

interface PodList {
  items: Array<{
    metadata: { name: string };
    spec: { containers: Array<{ name: string }> };
    status: { phase: string; podIP: string; containerStatuses?: Array<{ name: string; ready: boolean }> };
  }>;
}

/** Runs `script` with node in a one-off pod of the namespace and answers its output. */
function inPod(name: string, script: string): string {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: { restartPolicy: 'Never', containers: [{ name: 'probe', image: nodeImage, imagePullPolicy: 'Never', command: ['node', '-e', script] }] },
  };
  kubectl(['apply', '-f', '-'], JSON.stringify(pod));
  kubectl(['wait', '-n', ns, `pod/${name}`, '--for=jsonpath={.status.phase}=Succeeded', '--timeout=180s']);
  return kubectl(['logs', '-n', ns, name]).trim();
}

const secretValue = (secret: string, key: string) =>
  Buffer.from(kubectl(['get', 'secret', '-n', ns, secret, '-o', `jsonpath={.data.${key}}`]), 'base64').toString('utf8');

engineSuite('kubernetes', missing())('Baton installed by its Helm chart', () => {
  let serviceUrl = '';
  let token = '';

  beforeAll(async () => {
    run(kubectlBin!, ['delete', 'namespace', ns, '--wait=true', '--timeout=180s'], undefined, true);
    kubectl(['create', 'namespace', ns]);
    kubectl(['apply', '-n', ns, '-f', path.join(manifests, 'engines.yaml')]);
    kubectl(['rollout', 'status', '-n', ns, 'deployment/redis', '--timeout=180s']);
    helm([
      'install',
      release,
      path.join(repo, 'charts/baton'),
      '--namespace',
      ns,
      '-f',
      path.join(manifests, 'values-local-cluster.yaml'),
      '--set',
      `image.tag=${imageTag}`,
      '--wait',
      '--timeout',
      '15m',
    ]);
    const ip = kubectl(['get', 'service', '-n', ns, release, '-o', 'jsonpath={.spec.clusterIP}']);
    serviceUrl = `http://${ip}:8080`;
    const res = await fetch(`${serviceUrl}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keyId: 'baton-admin', keySecret: secretValue(`${release}-admin-key`, 'token') }),
    });
    expect(res.status).toBe(200);
    token = ((await res.json()) as { token: string }).token;
  }, 1_200_000);

  afterAll(() => {
    if (process.env.BATON_K8S_KEEP === '1') return; // left installed for a look after a failure
    run(helmBin!, ['uninstall', release, '--namespace', ns, '--wait', '--timeout', '5m'], undefined, true);
    run(kubectlBin!, ['delete', 'namespace', ns, '--wait=false'], undefined, true);
  });

  it('runs every replica with an injected daprd sidecar, all containers ready', () => {
    const pods = JSON.parse(kubectl(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=baton', '-o', 'json'])) as PodList;
    expect(pods.items).toHaveLength(2);
    for (const p of pods.items) {
      expect(p.status.phase).toBe('Running');
      expect(p.spec.containers.map((c) => c.name).sort()).toEqual(['baton', 'daprd']);
      expect(p.status.containerStatuses?.every((c) => c.ready)).toBe(true);
    }
  });

  it('refuses actor calls that do not carry the app token, from another pod of the namespace', () => {
    const pods = JSON.parse(kubectl(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=baton', '-o', 'json'])) as PodList;
    const target = `http://${pods.items[0]!.status.podIP}:8080/actors/WorkflowActor/some-id/method/status`;
    const out = inPod(
      'no-app-token',
      `fetch(${JSON.stringify(target)}, { method: 'PUT', body: '{}' }).then(async (r) => console.log(r.status, (await r.text()).slice(0, 200)), (e) => { console.log('error', String(e)); process.exit(1); });`,
    );
    expect(out).toMatch(/^401 .*dapr-api-token/);
  });

  const batonPods = (): PodList['items'] =>
    (JSON.parse(kubectl(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=baton', '-o', 'json'])) as PodList).items;

  it('loses nothing when a Baton pod is force-deleted under load, and serves again through the Service', async () => {
    const target: LoadTarget = {
      nextUrl: () => serviceUrl,
      live: () => [{ name: 'service', url: serviceUrl }],
      headers: () => ({ 'X-Authorization': token }),
    };
    const load = await defineLoad(target);
    const log = newWorkerLog();
    const workers = [0, 1, 2].map(() => startRecordingWorker({ taskType: load.taskType, url: () => serviceUrl, decide, log, headers: target.headers }));
    try {
      const first = await startMany(target, load.name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 180_000, 200);
      const second = startMany(target, load.name, WORKFLOWS / 2, WORKFLOWS / 2);
      const victim = batonPods()[0]!.metadata.name;
      const killedAt = Date.now();
      kubectl(['delete', 'pod', '-n', ns, victim, '--grace-period=0', '--force']);
      const servingAfterMs = await timeUntilServing(target, load.probe, killedAt, 240_000);
      console.log(JSON.stringify({ fault: 'kubectl delete pod --grace-period=0 --force of a Baton pod under load', servingAfterMs }));
      await expectAllCompleted(target, [...first, ...(await second)], log);
      // The Deployment replaces the pod: two replicas, each with its sidecar, ready again.
      await eventually(
        async () => {
          const pods = batonPods().filter((p) => p.status.phase === 'Running' && p.status.containerStatuses?.every((c) => c.ready));
          return pods.length === 2 && !pods.some((p) => p.metadata.name === victim) ? true : undefined;
        },
        300_000,
        2000,
      );
    } finally {
      for (const w of workers) await w.stop();
    }
  }, 900_000);

  describe('through the Baton Service', () => {
    describeInterface(async () => ({
      url: () => serviceUrl,
      headers: () => ({ 'X-Authorization': token }),
      callbackHost: NODE_IP,
      stop: async () => undefined,
    }));
  });
});
