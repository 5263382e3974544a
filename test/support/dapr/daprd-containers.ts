import { GenericContainer, Network, TestContainers, Wait, type StartedNetwork, type StartedTestContainer } from 'testcontainers';

/**
 * Real Dapr control plane + sidecars in Docker (testcontainers 11): Redis (actor state store and
 * pub/sub), placement, scheduler, and one daprd per app instance reaching the app on the host
 * through host.testcontainers.internal. Follows reference §5.5.
 */
export const DAPR_VERSION = process.env.DAPR_RUNTIME_VERSION ?? '1.18.4';

const COMPONENTS = `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: actorstore
spec:
  type: state.redis
  version: v1
  metadata:
  - name: redisHost
    value: "redis:6379"
  - name: actorStateStore
    value: "true"
---
apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: events
spec:
  type: pubsub.redis
  version: v1
  metadata:
  - name: redisHost
    value: "redis:6379"
  - name: redeliverInterval
    value: "1s"
  - name: processingTimeout
    value: "2s"
`;

export interface StartedDaprd {
  daprHttpPort: number;
  stop(): Promise<void>;
}

export interface DaprdCluster {
  /** Redis as seen from the host (to inspect actor state). */
  redisUrl: string;
  addSidecar(appId: string, appPort: number, appApiToken?: string): Promise<StartedDaprd>;
  close(): Promise<void>;
}

export const startDaprdCluster = async (): Promise<DaprdCluster> => {
  const network: StartedNetwork = await new Network().start();
  const started: StartedTestContainer[] = [];
  const [redis, placement, scheduler] = await Promise.all([
    new GenericContainer('redis:7-alpine').withNetwork(network).withNetworkAliases('redis').withExposedPorts(6379).start(),
    new GenericContainer(`daprio/placement:${DAPR_VERSION}`)
      .withNetwork(network)
      .withNetworkAliases('placement')
      .withCommand(['./placement', '-port', '50005'])
      .withWaitStrategy(Wait.forLogMessage(/Placement service started/))
      .withStartupTimeout(120_000)
      .start(),
    new GenericContainer(`daprio/scheduler:${DAPR_VERSION}`)
      .withNetwork(network)
      .withNetworkAliases('scheduler')
      .withCopyContentToContainer([
        { content: '', target: './default-dapr-scheduler-server-0/dapr-0.1/', mode: 0o777 },
        { content: '', target: './dapr-scheduler-existing-cluster/', mode: 0o777 },
      ])
      .withCommand(['./scheduler', '--port', '51005', '--etcd-data-dir', '.'])
      .withWaitStrategy(Wait.forLogMessage(/Dapr Scheduler listening/))
      .withStartupTimeout(120_000)
      .start(),
  ]);
  started.push(redis, placement, scheduler);
  const exposed = new Set<number>();

  return {
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    async addSidecar(appId, appPort, appApiToken) {
      if (!exposed.has(appPort)) {
        await TestContainers.exposeHostPorts(appPort);
        exposed.add(appPort);
      }
      const daprd = await new GenericContainer(`daprio/daprd:${DAPR_VERSION}`)
        .withNetwork(network)
        .withExposedPorts(3500)
        .withEnvironment(appApiToken ? { APP_API_TOKEN: appApiToken } : {})
        .withCopyContentToContainer([{ content: COMPONENTS, target: '/dapr-resources/components.yaml' }])
        .withCommand([
          './daprd',
          '--app-id', appId,
          '--dapr-listen-addresses=0.0.0.0',
          '--app-protocol', 'http',
          '--app-port', String(appPort),
          '--app-channel-address', 'host.testcontainers.internal',
          '--placement-host-address', 'placement:50005',
          '--scheduler-host-address', 'scheduler:51005',
          '--log-level', 'info',
          '--resources-path', '/dapr-resources',
        ])
        // healthz/outbound: ready before the app channel, which needs the app we start afterwards.
        .withWaitStrategy(Wait.forHttp('/v1.0/healthz/outbound', 3500).forStatusCodeMatching((c) => c >= 200 && c < 400))
        .withStartupTimeout(120_000)
        .start();
      started.push(daprd);
      return {
        daprHttpPort: daprd.getMappedPort(3500),
        stop: async () => {
          await daprd.stop();
          started.splice(started.indexOf(daprd), 1);
        },
      };
    },
    async close() {
      await Promise.allSettled([...started].reverse().map((c) => c.stop()));
      await network.stop();
    },
  };
};
