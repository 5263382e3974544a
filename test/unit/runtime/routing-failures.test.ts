import { DaprSidecarError } from '../../../src/runtime/dapr/actor-errors';
import { isRetriableRouting } from '../../../src/runtime/dapr/sidecar-api';

// Bodies daprd 1.18 answered in the real-engine suite (test/real) while replicas started and stopped.
const daprd = (status: number, body: string) => new DaprSidecarError(`daprd answered ${status}: ${body}`, status, body);

describe('isRetriableRouting', () => {
  test.each([
    ['no host yet', daprd(404, '{"errorCode":"ERR_ACTOR_NO_ADDRESS","message":"did not find address for actor WorkflowActor/x"}')],
    [
      'the chosen host is draining',
      daprd(500, '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: failed to create actor: actor type QueueActor not registered"}'),
    ],
    [
      "the chosen host's sidecar is gone",
      daprd(500, '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: failed to invoke target 127.0.0.1:45429 after -1 retries. Error: rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing: dial tcp 127.0.0.1:45429: connect: connection refused\\""}'),
    ],
    [
      'the actor was deactivated before the call reached it',
      daprd(500, '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: actor is closed, cannot handle lease"}'),
    ],
    ['our own sidecar is not listening', new DaprSidecarError('sidecar unreachable (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:3500', undefined, '')],
  ])('%s: retried', (_what, err) => {
    expect(isRetriableRouting(err)).toBe(true);
  });

  test.each([
    ['a turn that failed', daprd(500, '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error from actor service: (500) {\\"error\\":{\\"name\\":\\"Error\\",\\"message\\":\\"boom\\"}}"}')],
    ['the call was cut mid-way (the turn may have run)', daprd(500, '{"errorCode":"ERR_ACTOR_INVOKE_METHOD","message":"error invoke actor method: rpc error: code = Internal desc = error invoke actor method: context canceled"}')],
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
