import { DaprSidecarError } from '../../../src/runtime/dapr/actor-errors';
import { isRetriableRouting } from '../../../src/runtime/dapr/sidecar-api';
import { DaprActorHost } from '../../../src/runtime/dapr/dapr-actor-host';
import type { SidecarHttp, SidecarReply } from '../../../src/runtime/dapr/sidecar-http';
import { OutcomeUnknown } from '../../../src/runtime/ports';

// Bodies daprd 1.18 answered in the real-engine suite (test/real) while replicas started and stopped.
const daprd = (status: number, body: string) => new DaprSidecarError(`daprd answered ${status}: ${body}`, status, body);

describe('isRetriableRouting', () => {
  test.each([
    ['no host yet', daprd(404, '{"errorCode":"ERR_ACTOR_NO_ADDRESS","message":"did not find address for actor WorkflowActor/x"}')],
    [
      'the chosen host is draining',
      daprd(
        500,
        '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: failed to create actor: actor type QueueActor not registered"}',
      ),
    ],
    [
      "the chosen host's sidecar is gone",
      daprd(
        500,
        '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: failed to invoke target 127.0.0.1:45429 after -1 retries. Error: rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing: dial tcp 127.0.0.1:45429: connect: connection refused\\""}',
      ),
    ],
    [
      'the actor was deactivated before the call reached it',
      daprd(
        500,
        '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: actor is closed, cannot handle lease"}',
      ),
    ],
    ['our own sidecar is not listening', new DaprSidecarError('sidecar unreachable (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:3500', undefined, '')],
  ])('%s: retried', (_what, err) => {
    expect(isRetriableRouting(err)).toBe(true);
  });

  test.each([
    [
      'a turn that failed',
      daprd(
        500,
        '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error from actor service: (500) {\\"error\\":{\\"name\\":\\"Error\\",\\"message\\":\\"boom\\"}}"}',
      ),
    ],
    [
      'the call was cut mid-way (the turn may have run)',
      daprd(
        500,
        '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: context canceled"}',
      ),
    ],
    ['a timeout (the turn may have run)', new DaprSidecarError('sidecar unreachable (TimeoutError): The operation was aborted due to timeout', undefined, '')],
    ['a connection reset mid-call', new DaprSidecarError('sidecar unreachable (ECONNRESET): other side closed', undefined, '')],
    ['not a sidecar error', new Error('did not find address for actor')],
  ])('%s: not retried', (_what, err) => {
    expect(isRetriableRouting(err)).toBe(false);
  });
});

describe('what an API client sees when the actor runtime cannot finish a call', () => {
  test('503, retryable, for a sidecar failure (local or from a remote turn) and a stopping host', () => {
    const { toErrorBody } = jest.requireActual('../../../src/api/errors') as typeof import('../../../src/api/errors');
    const cut = daprd(500, '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: context canceled"}');
    const remote = Object.assign(new Error(cut.message), { name: 'DaprSidecarError' });
    const stopping = Object.assign(new Error('actor host is stopping'), { name: 'HostStopping' });
    for (const err of [cut, remote, stopping]) expect(toErrorBody(err)).toMatchObject({ status: 503, retryable: true });
    expect(toErrorBody(new Error('a bug'))).toMatchObject({ status: 500 });
  });
});

describe('a call whose turn may have run is answered as an unknown outcome, not as retryable', () => {
  const { toErrorBody } = jest.requireActual('../../../src/api/errors') as typeof import('../../../src/api/errors');
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  /** A sidecar that fails every actor call the same way, counting the attempts. */
  const failingHost = (fail: () => Promise<SidecarReply>) => {
    const sidecar = { attempts: 0, call: () => (sidecar.attempts++, fail()) };
    const host = new DaprActorHost({ sidecar: sidecar as unknown as SidecarHttp, log: quiet, routingRetryBudgetMs: 0 });
    return { host, sidecar };
  };
  const timeout = () => Promise.reject(Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }));
  const canceled = async (): Promise<SidecarReply> => ({
    status: 500,
    body: '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: context canceled"}',
  });
  const reset = () => Promise.reject(Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }));

  test.each([
    ['a timeout', timeout],
    ['context canceled', canceled],
    ['a connection reset mid-call', reset],
  ])('%s: 500, not retryable, saying the outcome is unknown and how to check; the call is not repeated', async (_what, fail) => {
    const { host, sidecar } = failingHost(fail);
    const err = await host.invoke('WorkflowActor', 'wf-1', 'start', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknown);
    expect(sidecar.attempts).toBe(1);
    const body = toErrorBody(err);
    expect(body).toMatchObject({ status: 500, retryable: false });
    expect(body.message).toMatch(/^Outcome unknown: WorkflowActor\.start of wf-1 was sent/);
    expect(body.message).toContain('GET /api/workflow/wf-1');
  });

  test('a call that never reached a turn (no host placed) stays 503 retryable', async () => {
    const { host } = failingHost(async () => ({
      status: 404,
      body: '{"errorCode":"ERR_ACTOR_NO_ADDRESS","message":"did not find address for actor WorkflowActor/x"}',
    }));
    const err = await host.invoke('WorkflowActor', 'wf-1', 'start', {}).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(OutcomeUnknown);
    expect(toErrorBody(err)).toMatchObject({ status: 503, retryable: true });
  });
});
