import { findActorErrorBody, reviveActorError, RemoteActorError, serializeActorError } from '../../../src/runtime/dapr/actor-errors';
import { ActorDeactivated } from '../../../src/runtime/ports';

class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

describe('actor error relay across daprd', () => {
  const body = serializeActorError(Object.assign(new ConflictError('already running'), { status: 409 }));

  it('reads the error body daprd relays verbatim (X-DaprErrorResponseHeader honoured)', () => {
    expect(findActorErrorBody(JSON.stringify(body))).toEqual(body);
  });

  it("reads the error body embedded in daprd's ERR_ACTOR_INVOKE_METHOD message", () => {
    const wrapped = JSON.stringify({ errorCode: 'ERR_ACTOR_INVOKE_METHOD', message: `error from actor service: (500) ${JSON.stringify(body)}` });
    expect(findActorErrorBody(wrapped)).toEqual(body);
  });

  it('finds nothing in unrelated sidecar errors', () => {
    expect(findActorErrorBody('{"errorCode":"ERR_ACTOR_NO_ADDRESS","message":"did not find address for actor"}')).toBeUndefined();
    expect(findActorErrorBody('not json')).toBeUndefined();
  });

  it('revives by name through the caller hook, ActorDeactivated natively, anything else as RemoteActorError', () => {
    const revive = (e: { name: string; message: string }) => (e.name === 'ConflictError' ? new ConflictError(e.message) : undefined);
    expect(reviveActorError(body, revive)).toBeInstanceOf(ConflictError);
    expect(reviveActorError(serializeActorError(new ActorDeactivated('fenced')))).toBeInstanceOf(ActorDeactivated);
    const plain = reviveActorError(body);
    expect(plain).toBeInstanceOf(RemoteActorError);
    expect(plain).toMatchObject({ name: 'ConflictError', message: 'already running', status: 409 });
  });
});
