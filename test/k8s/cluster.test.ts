/**
 * The single-node cluster of `npm run services -- kubernetes` (scripts/services/kubernetes.sh) is a
 * working Kubernetes: its node is Ready at the version built, and a pod from the locally assembled
 * Node base image resolves a Service through the cluster DNS and reaches the apiserver through
 * that Service's virtual IP (kube-proxy), i.e. CNI, DNS and Services all work.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { engineSuite } from '../support/real-engines';

const kubeconfig = process.env.BATON_KUBECONFIG;
const kubectlBin = process.env.BATON_KUBECTL_BIN;
const version = process.env.BATON_K8S_VERSION;

function missing(): string | undefined {
  if (!kubeconfig || !existsSync(kubeconfig)) return 'BATON_KUBECONFIG is unset or names no file';
  if (!kubectlBin || !existsSync(kubectlBin)) return 'BATON_KUBECTL_BIN is unset or names no file';
  return undefined;
}

function kubectl(args: string[], input?: string): string {
  const r = spawnSync(kubectlBin!, ['--kubeconfig', kubeconfig!, ...args], { encoding: 'utf8', input, timeout: 240_000 });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

// The base image the Dockerfile names, as scripts/services/kubernetes-images.sh assembles and imports it.
const nodeImage = `docker.io/library/${/^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(path.resolve(__dirname, '../../Dockerfile'), 'utf8'))![1]}`;

engineSuite('kubernetes', missing())('the local single-node cluster', () => {
  const ns = `k8s-smoke-${process.pid}`;
  beforeAll(() => kubectl(['create', 'namespace', ns]));
  afterAll(() => kubectl(['delete', 'namespace', ns, '--wait=false']));

  it('has its node Ready, running the kubelet that was built', () => {
    const node = JSON.parse(kubectl(['get', 'node', 'baton-node', '-o', 'json'])) as {
      status: { nodeInfo: { kubeletVersion: string }; conditions: { type: string; status: string }[] };
    };
    expect(node.status.nodeInfo.kubeletVersion).toBe(`v${version}`);
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('runs a pod that finds the apiserver Service through CoreDNS and connects to its virtual IP', () => {
    const script = [
      "const dns = require('node:dns'), net = require('node:net');",
      "dns.promises.lookup('kubernetes.default.svc.cluster.local').then(({ address }) => new Promise((ok, fail) => {",
      "  const s = net.connect(443, address, () => { console.log('connected ' + address); s.end(); ok(); });",
      "  s.on('error', fail);",
      '})).catch((e) => { console.error(String(e)); process.exit(1); });',
    ].join('\n');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'dns-and-service', namespace: ns },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'probe', image: nodeImage, imagePullPolicy: 'Never', command: ['node', '-e', script] }],
      },
    };
    kubectl(['apply', '-f', '-'], JSON.stringify(pod));
    kubectl(['wait', '-n', ns, 'pod/dns-and-service', '--for=jsonpath={.status.phase}=Succeeded', '--timeout=180s']);
    const serviceIp = kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}']);
    expect(kubectl(['logs', '-n', ns, 'dns-and-service']).trim()).toBe(`connected ${serviceIp}`);
  });
});
