import { callDrainProblem, maxCallDrainMs } from '../../../../src/runtime/dapr/call-drain';
import { DaprActorHost } from '../../../../src/runtime/dapr/dapr-actor-host';
import type { SidecarHttp } from '../../../../src/runtime/dapr/sidecar-http';

describe("the actor call drain against placement's dissemination round", () => {
  test('a drain up to half the round fits; longer ones are refused with the reason', () => {
    expect(maxCallDrainMs(8000)).toBe(4000);
    expect(callDrainProblem(2000, 8000)).toBeUndefined();
    expect(callDrainProblem(4000, 8000)).toBeUndefined();
    expect(callDrainProblem(4001, 8000)).toMatch(/at most 4000 ms/);
    // daprd's own former default in Baton, 10 s, outlives Dapr's default 8 s round.
    expect(callDrainProblem(10_000, 8000)).toMatch(/does not fit placement's 8000 ms dissemination round/);
  });

  test("the host's default drain fits Dapr's default round", () => {
    const host = new DaprActorHost({
      sidecar: {} as SidecarHttp,
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const drain = String(host.appConfig().drainOngoingCallTimeout);
    const ms = Number(/^(\d+)s$/.exec(drain)?.[1]) * 1000;
    expect(callDrainProblem(ms, 8000)).toBeUndefined();
  });
});
