// What the two distributed test clusters share: test/distributed/cluster.ts (replicas in this
// process behind the Dapr sidecar double) and test/support/real-cluster.ts (replica processes beside
// real daprd).

/** Environment of one Baton replica of a test cluster in the distributed profile; each cluster adds its store, index and Dapr settings. */
export function replicaTestEnv(o: { port: number; daprHttpPort: number; redisUrl: string; redisKeyPrefix: string }): Record<string, string> {
  return {
    PORT: String(o.port),
    BATON_PROFILE: 'distributed',
    DAPR_HTTP_PORT: String(o.daprHttpPort),
    REDIS_URL: o.redisUrl,
    BATON_REDIS_KEY_PREFIX: o.redisKeyPrefix,
    BATON_HTTP_TASK_WORKERS: '2',
    // The interface suite's HTTP tasks call a server of the test on loopback.
    BATON_HTTP_TASK_ALLOW: '127.0.0.1',
    // The distributed profile needs auth unless told otherwise; the suites call the API without
    // tokens unless a test turns auth on for its cluster.
    BATON_AUTH: 'off',
  };
}

/** The live replicas of a cluster, and their URLs in turn. */
export function replicaRotation<R extends { url: string; alive: boolean }>(replicas: R[]): { live(): R[]; nextUrl(): string } {
  let turn = 0;
  const live = (): R[] => replicas.filter((r) => r.alive);
  return {
    live,
    nextUrl() {
      const l = live();
      return l[turn++ % l.length]!.url;
    },
  };
}
