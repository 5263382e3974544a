/**
 * `helm install baton charts/baton` on the local single-node cluster (`npm run services -- kubernetes`):
 * Dapr installed by its own chart with mTLS, Baton's image built from the repository's Dockerfile
 * (`npm run test:k8s` builds and imports it first), Redis in the cluster, Cassandra and Elasticsearch
 * reached through Services (test/k8s/manifests). Proves the chart's wiring on a real kubelet: injected
 * daprd sidecars, the app token guarding the actor routes, and the whole interface suite through the
 * Baton Service with auth on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describeInterface } from '../api/interface-suite';
import { decide, defineLoad, expectAllCompleted, startMany, timeUntilServing, uniq, WORKFLOWS, type LoadTarget } from '../support/fault-load';
import { engineSuite } from '../support/real-engines';
import { call, eventually } from '../support/baton';
import { createEverySecondSchedule, expectEverySlotOnce, scheduleExecutions } from '../support/fault-workloads';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';

const kubeconfig = process.env.BATON_KUBECONFIG;
const kubectlBin = process.env.BATON_KUBECTL_BIN;
const helmBin = process.env.BATON_HELM_BIN;
const containerdSock = process.env.BATON_K8S_CONTAINERD_SOCK;
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
  if (!containerdSock || !existsSync(containerdSock)) return 'BATON_K8S_CONTAINERD_SOCK is unset or names no socket';
  return undefined;
}

function run(bin: string, args: string[], input?: string, allowFailure = false): string {
  const r = spawnSync(bin, args, { encoding: 'utf8', input, timeout: 900_000, env: { ...process.env, KUBECONFIG: kubeconfig } });
  if (r.status !== 0 && !allowFailure) throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const kubectl = (args: string[], input?: string) => run(kubectlBin!, args, input);
const helm = (args: string[]) => run(helmBin!, args);
/** `helm install` or `upgrade` of the chart with this cluster's values and an image tag, waiting for the rollout. */
const chart = (verb: 'install' | 'upgrade', tag: string, timeout: string) =>
  helm([
    verb,
    release,
    path.join(repo, 'charts/baton'),
    '--namespace',
    ns,
    '-f',
    path.join(manifests, 'values-local-cluster.yaml'),
    '--set',
    `image.tag=${tag}`,
    '--wait',
    '--timeout',
    timeout,
  ]);

/**
 * A failed call a client may simply repeat: no answer (refused, reset, timed out) or 502/503/504 not marked
 * `retryable: false`. A 500 (an unknown outcome) or a 4xx is not.
 */
const isRetryable = (error: string): boolean => {
  const status = /^\w+ (\d{3}) /.exec(error)?.[1];
  if (status === undefined) return true;
  return ['502', '503', '504'].includes(status) && !/"retryable":\s*false/.test(error);
};

interface PodList {
  items: Array<{
    metadata: { name: string; deletionTimestamp?: string };
    spec: { containers: Array<{ name: string; image: string }> };
    status: { phase: string; podIP: string; containerStatuses?: Array<{ name: string; ready: boolean }> };
  }>;
}

/** The label `networkPolicy.apiFrom` admits to Baton's port (values-local-cluster.yaml). */
const API_CLIENT = { 'baton-k8s/api-client': 'true' };

/**
 * A node script that fetches `url` and prints `<status> <body>`, repeating a refused connection once a second up
 * to `tries` times (a new pod's address reaches kube-router's policy sets a moment after it starts); else `refused <code>`.
 */
const fetchScript = (url: string, init: RequestInit, tries: number) =>
  `(async () => { let last = ''; for (let i = 0; i < ${tries}; i++) { try { const r = await fetch(${JSON.stringify(url)}, { ...${JSON.stringify(init)}, signal: AbortSignal.timeout(3000) }); console.log(r.status, (await r.text()).slice(0, 200)); return; } catch (e) { last = e.cause?.code ?? e.name; } await new Promise((r) => setTimeout(r, 1000)); } console.log('refused', last); })();`;

/** Runs `script` with node in a one-off pod of the namespace and answers its output. */
function inPod(name: string, script: string, labels: Record<string, string> = {}): string {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels },
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
    chart('install', imageTag, '15m');
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

  /** Subscribers of each Redis channel a replica listens on: one per replica, or a replica misses definition changes or wake-ups. */
  const subscriptions = (): Record<string, number> => {
    const channels = ['baton:metadata-changed', 'baton:wakeups'];
    const out = kubectl(['exec', '-n', ns, 'deploy/redis', '--', 'redis-cli', 'PUBSUB', 'NUMSUB', ...channels])
      .trim()
      .split('\n');
    return Object.fromEntries(channels.map((c) => [c, Number(out[out.indexOf(c) + 1])]));
  };
  const everyReplicaSubscribed = (replicas: number) =>
    eventually(async () => (Object.values(subscriptions()).every((n) => n === replicas) ? true : undefined), 60_000, 1000).catch(() => {
      throw new Error(`subscribers per channel: ${JSON.stringify(subscriptions())}, replicas: ${replicas}`);
    });

  it('subscribes every replica to definition changes and long-poll wake-ups in Redis', async () => {
    await everyReplicaSubscribed(2);
  });

  it('refuses actor calls that do not carry the app token, from another pod of the namespace', () => {
    const pods = JSON.parse(kubectl(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=baton', '-o', 'json'])) as PodList;
    const target = `http://${pods.items[0]!.status.podIP}:8080/actors/WorkflowActor/some-id/method/status`;
    const out = inPod('no-app-token', fetchScript(target, { method: 'PUT', body: '{}' }, 60), API_CLIENT);
    expect(out).toMatch(/^401 .*dapr-api-token/);
  });

  it("enforces the chart's NetworkPolicy: a pod outside networkPolicy.apiFrom cannot reach Baton's port, an admitted one can", () => {
    const health = `http://${batonPods()[0]!.status.podIP}:8080/health`;
    expect(inPod('api-client', fetchScript(health, {}, 60), API_CLIENT)).toMatch(/^200 /);
    // kube-router rejects it (ICMP port unreachable): refused at every try, never an answer.
    expect(inPod('not-api-client', fetchScript(health, {}, 10))).toBe('refused ECONNREFUSED');
  });

  const batonPods = (): PodList['items'] =>
    (JSON.parse(kubectl(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=baton', '-o', 'json'])) as PodList).items;

  /** Lines of the Baton containers' logs that `keep` selects, each prefixed by its pod. */
  const podLogLines = (keep: (line: string) => boolean): string[] =>
    batonPods().flatMap((p) =>
      run(kubectlBin!, ['logs', '-n', ns, p.metadata.name, '-c', 'baton'], undefined, true)
        .split('\n')
        .filter(keep)
        .map((l) => `${p.metadata.name}: ${l.slice(0, 300)}`),
    );

  /** Recovery passes, warnings and errors, and every line (debug ones too) naming one of the first ten executions left open. */
  const bearsOn = (stuck: string[]) => {
    const ids = stuck.slice(0, 10);
    return (line: string): boolean => line.includes('recovery') || /"level":(40|50|60)/.test(line) || ids.some((id) => line.includes(id));
  };

  /** What the Baton pods logged that bears on executions left open: recovery passes, warnings and errors, and every line naming one of them. */
  const stuckEvidence = async (stuck: string[]): Promise<string> => podLogLines(bearsOn(stuck)).join('\n');

  /** The lines a pod's Baton container logs from now until it ends (kubectl logs -f); `lines` selects as stuckEvidence does. */
  const followLog = (pod: string) => {
    const out: string[] = [];
    let partial = '';
    const child = spawn(kubectlBin!, ['logs', '-f', '-n', ns, pod, '-c', 'baton', '--since=10m'], { env: { ...process.env, KUBECONFIG: kubeconfig } });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      out.push(...parts);
    });
    child.on('error', () => undefined);
    return {
      lines: (stuck: string[]) => out.filter(bearsOn(stuck)),
      stop: () => void child.kill(),
    };
  };

  /** The Service as a load target, the load's definitions, and three recording workers polling through it. */
  async function serviceLoad() {
    const target: LoadTarget = {
      nextUrl: () => serviceUrl,
      live: () => [{ name: 'service', url: serviceUrl }],
      headers: () => ({ 'X-Authorization': token }),
    };
    const load = await defineLoad(target);
    const log = newWorkerLog();
    const workers = [0, 1, 2].map(() => startRecordingWorker({ taskType: load.taskType, url: () => serviceUrl, decide, log, headers: target.headers }));
    return { target, load, log, workers };
  }

  it('loses nothing when a Baton pod is force-deleted under load, and serves again through the Service', async () => {
    const { target, load, log, workers } = await serviceLoad();
    let victimLog: ReturnType<typeof followLog> | undefined;
    try {
      const first = await startMany(target, load.name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 180_000, 200);
      const second = startMany(target, load.name, WORKFLOWS / 2, WORKFLOWS / 2);
      const victim = batonPods()[0]!.metadata.name;
      // Its log is gone with it: followed until it dies, for the evidence of a failure.
      victimLog = followLog(victim);
      const killedAt = Date.now();
      kubectl(['delete', 'pod', '-n', ns, victim, '--grace-period=0', '--force']);
      const servingAfterMs = await timeUntilServing(target, load.probe, killedAt, 240_000);
      await expectAllCompleted(target, [...first, ...(await second)], log, async (stuck) =>
        [await stuckEvidence(stuck), ...victimLog!.lines(stuck).map((l) => `${victim} (deleted): ${l.slice(0, 300)}`)].join('\n'),
      );
      const completedAfterMs = Date.now() - killedAt;
      const errors = log.errors.map((e) => e.slice(0, 100));
      // What the recovery scan brought back (deadlines held in the deleted pod's memory among them).
      const scans = podLogLines((l) => l.includes('recovery'));
      console.log(
        JSON.stringify({ fault: 'kubectl delete pod --grace-period=0 --force of a Baton pod under load', servingAfterMs, completedAfterMs, errors, scans }),
      );
      // The Deployment replaces the pod: two replicas, each with its sidecar, ready again.
      await eventually(
        async () => {
          const pods = batonPods().filter((p) => p.status.phase === 'Running' && p.status.containerStatuses?.every((c) => c.ready));
          return pods.length === 2 && !pods.some((p) => p.metadata.name === victim) ? true : undefined;
        },
        300_000,
        2000,
      );
      // The new pod subscribed as it started (a subscription lost then makes it miss every later definition change).
      await everyReplicaSubscribed(2);
    } finally {
      for (const w of workers) await w.stop();
      victimLog?.stop();
    }
  }, 900_000);

  it("loses nothing when Dapr's placement and scheduler pods are deleted under load, and timers still fire", async () => {
    const { target, load, log, workers } = await serviceLoad();
    try {
      const schedule = await createEverySecondSchedule(target, load.probe);
      const first = await startMany(target, load.name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 180_000, 200);
      await eventually(async () => ((await scheduleExecutions(target, schedule)).length >= 2 ? true : undefined), 60_000, 500);
      const second = startMany(target, load.name, WORKFLOWS / 2, WORKFLOWS / 2);
      // Placement (actor placement) and every scheduler (actor reminders: the WAITs, retry delays and the schedule's firings).
      const deletedAt = Date.now();
      kubectl([
        'delete',
        'pod',
        '-n',
        'dapr-system',
        'dapr-placement-server-0',
        'dapr-scheduler-server-0',
        'dapr-scheduler-server-1',
        'dapr-scheduler-server-2',
        '--wait=false',
      ]);
      const servingAfterMs = await timeUntilServing(target, load.probe, deletedAt, 240_000);
      await expectAllCompleted(target, [...first, ...(await second)], log, stuckEvidence);
      // The StatefulSets replaced them and the schedule's reminder fires again afterwards.
      kubectl(['rollout', 'status', '-n', 'dapr-system', 'statefulset/dapr-placement-server', '--timeout=300s']);
      kubectl(['rollout', 'status', '-n', 'dapr-system', 'statefulset/dapr-scheduler-server', '--timeout=300s']);
      const later = Date.now();
      await eventually(async () => ((await scheduleExecutions(target, schedule)).some((e) => e.scheduledTime > later) ? true : undefined), 120_000, 1000);
      const slots = await expectEverySlotOnce(target, schedule, load.probe);
      console.log(
        JSON.stringify({ fault: 'placement and scheduler pods deleted under load', servingAfterMs, completedAfterMs: Date.now() - deletedAt, slots }),
      );
      expect((await call(serviceUrl, 'DELETE', `/api/scheduler/schedules/${schedule}`, undefined, { headers: target.headers!() })).status).toBe(200);
    } finally {
      for (const w of workers) await w.stop();
    }
  }, 900_000);

  it('rolls a helm upgrade to a new image tag under load with only retryable errors, then scales 2 -> 3 -> 2', async () => {
    // The same image under a second tag: the Deployment's pod template changes, so Kubernetes rolls it.
    const nextTag = `${imageTag}-next`;
    run('ctr', [
      '--address',
      containerdSock!,
      '-n',
      'k8s.io',
      'images',
      'tag',
      '--force',
      `docker.io/library/baton:${imageTag}`,
      `docker.io/library/baton:${nextTag}`,
    ]);
    const { target, load, log, workers } = await serviceLoad();
    const startErrors: string[] = [];
    // A terminating pod stays Running and may stay ready while it drains: not counted.
    const readyPods = () =>
      batonPods().filter((p) => !p.metadata.deletionTimestamp && p.status.phase === 'Running' && p.status.containerStatuses?.every((c) => c.ready));
    try {
      const ids = await startMany(target, load.name, WORKFLOWS / 2, 0, startErrors);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 180_000, 200);

      const during = startMany(target, load.name, WORKFLOWS / 2, WORKFLOWS / 2, startErrors);
      const upgradeAt = Date.now();
      chart('upgrade', nextTag, '10m');
      const upgradeMs = Date.now() - upgradeAt;
      ids.push(...(await during));
      const images = readyPods().flatMap((p) => p.spec.containers.filter((c) => c.name === 'baton').map((c) => c.image));
      expect(images).toEqual([`baton:${nextTag}`, `baton:${nextTag}`]);

      const scaleUp = startMany(target, load.name, WORKFLOWS / 2, WORKFLOWS, startErrors);
      kubectl(['scale', '-n', ns, `deployment/${release}`, '--replicas=3']);
      kubectl(['rollout', 'status', '-n', ns, `deployment/${release}`, '--timeout=300s']);
      ids.push(...(await scaleUp));
      expect(readyPods()).toHaveLength(3);

      const scaleDown = startMany(target, load.name, WORKFLOWS / 2, (WORKFLOWS * 3) / 2, startErrors);
      kubectl(['scale', '-n', ns, `deployment/${release}`, '--replicas=2']);
      await eventually(async () => (batonPods().length === 2 && readyPods().length === 2 ? true : undefined), 300_000, 1000);
      ids.push(...(await scaleDown));

      await expectAllCompleted(target, ids, log, stuckEvidence);
      // What clients saw on the way: refused connections, resets and 503s marked retryable, nothing else.
      const errors = [...startErrors, ...log.errors];
      console.log(
        JSON.stringify({
          fault: 'helm upgrade to a new tag, then scale 2 -> 3 -> 2, under load',
          workflows: ids.length,
          upgradeMs,
          errors: errors.map((e) => e.slice(0, 120)),
        }),
      );
      expect(errors.filter((e) => !isRetryable(e))).toEqual([]);
    } finally {
      for (const w of workers) await w.stop();
    }
  }, 1_500_000);

  it("runs official JS SDK workers as a Deployment through their own daprd, and completes HUMAN tasks from another app's pod over pub/sub", async () => {
    const headers = { 'X-Authorization': token };
    const post = async (p: string, body?: unknown) => {
      const r = await call(serviceUrl, 'POST', p, body, { headers });
      if (r.status !== 200) throw new Error(`POST ${p} answered ${r.status}: ${r.text}`);
      return r.body;
    };
    // A WORKER key for the SDK, as a user's worker Deployment would hold it.
    const app = await post('/api/applications', { name: uniq('k8s-sdk-workers') });
    await post(`/api/applications/${app.id}/roles/WORKER`);
    const key = await post(`/api/applications/${app.id}/accessKeys`);
    kubectl(['create', 'secret', 'generic', 'sdk-worker-key', '-n', ns, `--from-literal=keyId=${key.id}`, `--from-literal=keySecret=${key.secret}`]);

    const taskType = uniq('k8s_sdk_task');
    const name = uniq('k8s_sdk_then_human');
    await post('/api/metadata/taskdef', [{ name: taskType, retryCount: 0, responseTimeoutSeconds: 30, timeoutSeconds: 600 }]);
    await post('/api/metadata/workflowdef', {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [
        { name: taskType, taskReferenceName: 'work', inputParameters: { n: '${workflow.input.n}' } },
        { name: 'approve', taskReferenceName: 'approve', type: 'HUMAN' },
      ],
      outputParameters: { doubled: '${work.output.doubled}', worker: '${work.output.worker}', approvedBy: '${approve.output.by}' },
    });

    // The worker Deployment: the SDK's TaskManager, its server URL Dapr service invocation through its own sidecar.
    const sdkVersion = (JSON.parse(readFileSync(path.join(repo, 'node_modules/@io-orkes/conductor-javascript/package.json'), 'utf8')) as { version: string })
      .version;
    const workerScript = `
      const { orkesConductorClient, TaskManager } = require('@io-orkes/conductor-javascript');
      const worker = require('os').hostname();
      orkesConductorClient({ serverUrl: process.env.CONDUCTOR_SERVER_URL, keyId: process.env.KEY_ID, keySecret: process.env.KEY_SECRET }).then((client) => {
        new TaskManager(client, [{ taskDefName: ${JSON.stringify(taskType)}, execute: async (t) => ({ status: 'COMPLETED', outputData: { doubled: Number(t.inputData.n) * 2, worker } }) }],
          { options: { workerID: worker, pollInterval: 200, concurrency: 2 } }).startPolling();
        console.log('polling');
      }, (err) => { console.error(String(err)); process.exit(1); });`;
    const daprPod = (appId: string) => ({
      'dapr.io/enabled': 'true',
      'dapr.io/app-id': appId,
      'dapr.io/sidecar-cpu-request': '50m',
      'dapr.io/sidecar-memory-request': '64Mi',
    });
    const keyEnv = (envName: string, k: string) => ({ name: envName, valueFrom: { secretKeyRef: { name: 'sdk-worker-key', key: k } } });
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'sdk-workers', namespace: ns },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'sdk-workers' } },
          template: {
            metadata: { labels: { app: 'sdk-workers' }, annotations: daprPod('sdk-workers') },
            spec: {
              containers: [
                {
                  name: 'worker',
                  image: `localhost/baton-sdk-worker:${sdkVersion}`,
                  imagePullPolicy: 'Never',
                  command: ['node', '-e', workerScript],
                  env: [
                    { name: 'CONDUCTOR_SERVER_URL', value: `http://localhost:3500/v1.0/invoke/${release}.${ns}/method` },
                    keyEnv('KEY_ID', 'keyId'),
                    keyEnv('KEY_SECRET', 'keySecret'),
                  ],
                },
              ],
            },
          },
        },
      }),
    );
    kubectl(['rollout', 'status', '-n', ns, 'deployment/sdk-workers', '--timeout=300s']);

    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push((await call(serviceUrl, 'POST', '/api/workflow', { name, input: { n } }, { headers })).text);
    // Every SIMPLE task done by the Deployment's pods: each execution now waits on its HUMAN task.
    const workerPods = (JSON.parse(kubectl(['get', 'pods', '-n', ns, '-l', 'app=sdk-workers', '-o', 'json'])) as PodList).items.map((p) => p.metadata.name);
    const humanWaiting = async (id: string) => {
      const w = (await call(serviceUrl, 'GET', `/api/workflow/${id}?includeTasks=true`, undefined, { headers })).body;
      const work = w.tasks?.find((t: { referenceTaskName: string }) => t.referenceTaskName === 'work');
      const approve = w.tasks?.find((t: { referenceTaskName: string }) => t.referenceTaskName === 'approve');
      return work?.status === 'COMPLETED' && approve?.status === 'IN_PROGRESS' ? (work.outputData as { worker: string }) : undefined;
    };
    for (const id of ids) expect(workerPods).toContain((await eventually(() => humanWaiting(id), 180_000, 500)).worker);

    // Another app's pod publishes each approval to the completion topic through a pub/sub component of its own on the same Redis.
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'dapr.io/v1alpha1',
        kind: 'Component',
        metadata: { name: 'approver-pubsub', namespace: ns },
        spec: { type: 'pubsub.redis', version: 'v1', metadata: [{ name: 'redisHost', value: 'redis:6379' }] },
        scopes: ['approver'],
      }),
    );
    const publishScript = `
      const ids = ${JSON.stringify(ids)};
      const publish = (id) => fetch('http://localhost:3500/v1.0/publish/approver-pubsub/baton-task-completions', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workflowId: id, taskRefName: 'approve', status: 'COMPLETED', output: { by: 'approver' } }) }).then((r) => r.status);
      (async () => {
        for (const id of ids) { for (;;) { const s = await publish(id).catch(() => 0); if (s === 204) break; await new Promise((r) => setTimeout(r, 500)); } }
        console.log('published', ids.length);
        setInterval(() => undefined, 1 << 30);
      })();`;
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'approver', namespace: ns, annotations: daprPod('approver') },
        spec: { containers: [{ name: 'approver', image: nodeImage, imagePullPolicy: 'Never', command: ['node', '-e', publishScript] }] },
      }),
    );
    for (const id of ids) {
      const done = await eventually(
        async () => {
          const w = (await call(serviceUrl, 'GET', `/api/workflow/${id}`, undefined, { headers })).body;
          return w.status === 'COMPLETED' ? w : undefined;
        },
        180_000,
        500,
      );
      expect(done.output).toEqual({ doubled: done.input.n * 2, worker: expect.stringMatching(/^sdk-workers-/), approvedBy: 'approver' });
    }
    expect(kubectl(['logs', '-n', ns, 'approver', '-c', 'approver'])).toContain(`published ${ids.length}`);
    kubectl(['delete', 'pod', '-n', ns, 'approver', '--wait=false']);
    kubectl(['delete', 'deployment', '-n', ns, 'sdk-workers', '--wait=false']);
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
