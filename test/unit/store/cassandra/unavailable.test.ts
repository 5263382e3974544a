import { errors, types } from 'cassandra-driver';
import { toErrorBody } from '../../../../src/api/errors';

// What a client sees when Cassandra cannot serve: a retryable 503 in Conductor's error body, never a 500.

/** What the driver raises when a connection closes under a request (its DriverError, abstract in its types). */
class SocketClosed extends errors.DriverError {}

const response = (code: number, message: string) => new errors.ResponseError(code, message);

describe('Cassandra that cannot serve a request now', () => {
  test.each([
    ['no quorum', response(types.responseErrorCodes.unavailableException, 'Cannot achieve consistency level LOCAL_QUORUM')],
    ['a read timeout', response(types.responseErrorCodes.readTimeout, 'Operation timed out - received only 1 responses.')],
    ['a write timeout', response(types.responseErrorCodes.writeTimeout, 'Operation timed out - received only 1 responses.')],
    ['an overloaded node', response(types.responseErrorCodes.overloaded, 'overloaded')],
    ['no host reachable', new errors.NoHostAvailableError({ '127.0.0.1:9042': new Error('connect ECONNREFUSED') })],
    ['a connection closed under the request', Object.assign(new SocketClosed('Socket was closed'), { isSocketError: true })],
    [
      'no answer within the client timeout',
      new errors.OperationTimedOutError('The host 127.0.0.1:9042 did not reply before timeout 12000 ms', '127.0.0.1:9042'),
    ],
  ])('%s answers 503, retryable', (_, err) => {
    expect(toErrorBody(err)).toMatchObject({ status: 503, retryable: true, message: expect.stringMatching(/^Cassandra cannot serve this request now: /) });
  });

  test("a query Cassandra refuses as wrong is Baton's bug, not a pause: 500", () => {
    expect(toErrorBody(response(types.responseErrorCodes.syntaxError, 'line 1:0 no viable alternative'))).toMatchObject({ status: 500 });
  });
});
