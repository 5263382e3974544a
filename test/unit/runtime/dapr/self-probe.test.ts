import { DaprActorHost, PROBE_ACTOR_TYPE } from '../../../../src/runtime/dapr/dapr-actor-host';
import type { SidecarHttp, SidecarReply } from '../../../../src/runtime/dapr/sidecar-http';

// The Dapr host probes its own path to the actors (a call of the probe actor type through its
// sidecar): while those calls keep failing for longer than the policy's window, it reports itself
// unhealthy, so /health turns red and Kubernetes restarts the replica.

/** A sidecar that is ready, then answers actor calls or holds them until their limit, as the test says. */
class Sidecar {
  holding = false;
  readonly limits: Array<number | undefined> = [];
  async waitReady(): Promise<void> {}
  async call(method: string, path: string, _body?: unknown, timeoutMs?: number): Promise<SidecarReply> {
    this.limits.push(timeoutMs);
    if (this.holding) throw Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    expect(`${method} ${path}`).toMatch(new RegExp(`^PUT /v1.0/actors/${PROBE_ACTOR_TYPE}/probe-\\d+/method/ping$`));
    return { status: 200, body: '"pong"' };
  }
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function probedHost() {
  const sidecar = new Sidecar();
  const clock = { now: 1_000_000 };
  const host = new DaprActorHost({
    sidecar: sidecar as unknown as SidecarHttp,
    log: quiet,
    now: () => clock.now,
    drainMs: 0,
    // The test probes by hand; the host's own timer is far away.
    liveness: { intervalMs: 3_600_000, timeoutMs: 250, failures: 3, windowMs: 30_000 },
  });
  await host.start();
  /** One probe, `ms` after the previous one. */
  const probeAfter = async (ms: number) => {
    clock.now += ms;
    await host.probeOnce();
  };
  return { host, sidecar, probeAfter };
}

test('a sidecar that holds actor calls past the window turns the host unhealthy; one answered call turns it healthy again', async () => {
  const { host, sidecar, probeAfter } = await probedHost();
  await probeAfter(10_000);
  expect(host.healthy()).toBe(true);
  sidecar.holding = true;
  for (let i = 0; i < 3; i++) await probeAfter(10_000);
  expect(host.healthy()).toBe(true); // three failures over 20 s: a long rebalance, not yet a wedge
  await probeAfter(10_000);
  expect(host.healthy()).toBe(false);
  expect(new Set(sidecar.limits)).toEqual(new Set([250])); // each probe with its own short limit
  sidecar.holding = false;
  await probeAfter(10_000);
  expect(host.healthy()).toBe(true);
  await host.stop();
});

test('a draining replica does not probe and is not reported wedged', async () => {
  const { host, sidecar, probeAfter } = await probedHost();
  sidecar.holding = true;
  for (let i = 0; i < 4; i++) await probeAfter(10_000);
  expect(host.healthy()).toBe(false);
  await host.drain();
  expect(host.healthy()).toBe(true);
  const calls = sidecar.limits.length;
  await probeAfter(10_000);
  expect(host.healthy()).toBe(true);
  expect(sidecar.limits.length).toBe(calls + 1); // the hand-made probe ran but counted for nothing
  await host.stop();
});

test('the probe actor type is served by the host and listed for daprd', () => {
  const host = new DaprActorHost({
    sidecar: new Sidecar() as unknown as SidecarHttp,
    log: quiet,
    liveness: { intervalMs: 1000, timeoutMs: 250, failures: 3, windowMs: 30_000 },
  });
  expect(host.appConfig().entities).toEqual([PROBE_ACTOR_TYPE]);
  expect(new DaprActorHost({ sidecar: new Sidecar() as unknown as SidecarHttp, log: quiet }).appConfig().entities).toEqual([]);
});
