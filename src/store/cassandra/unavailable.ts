import { errors, types } from 'cassandra-driver';

// Which driver errors mean "Cassandra could not serve this request now" (no quorum, a node overloaded or
// starting, a timeout): worth a retry after a pause, so the API answers them 503 retryable, not 500.
// A conditional write whose outcome is unknown is settled by the store before it gets here.

const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  types.responseErrorCodes.unavailableException,
  types.responseErrorCodes.overloaded,
  types.responseErrorCodes.isBootstrapping,
  types.responseErrorCodes.readTimeout,
  types.responseErrorCodes.writeTimeout,
  types.responseErrorCodes.readFailure,
  types.responseErrorCodes.writeFailure,
]);

/** The connection carrying a request closed; `requestNotWritten` when it never left (the driver's own flags). */
export const socketError = (err: unknown): { written: boolean } | undefined => {
  const e = err as { isSocketError?: unknown; requestNotWritten?: unknown } | undefined;
  return err instanceof errors.DriverError && e?.isSocketError === true ? { written: e.requestNotWritten !== true } : undefined;
};

export function cassandraUnavailable(err: unknown): boolean {
  if (socketError(err)) return true;
  if (err instanceof errors.NoHostAvailableError || err instanceof errors.OperationTimedOutError || err instanceof errors.BusyConnectionError) return true;
  return err instanceof errors.ResponseError && UNAVAILABLE_CODES.has(err.code);
}
