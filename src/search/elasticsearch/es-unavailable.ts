import { errors } from '@elastic/elasticsearch';
import { SearchUnavailable } from '../search-unavailable';

/** Statuses Elasticsearch answers while it cannot serve now (back-pressure, no shard copy, a proxy without a backend). */
const UNAVAILABLE_STATUS = new Set([429, 502, 503, 504]);

/** Whether a client error means Elasticsearch cannot be reached or cannot answer now, rather than a refused request. */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) return true;
  return err instanceof errors.ResponseError && UNAVAILABLE_STATUS.has(err.statusCode ?? 0);
}

/**
 * Runs a call to Elasticsearch; its unavailability becomes SearchUnavailable (a 503 for a search; for a write, an error
 * that logs in one short line instead of the client's, which carries the whole request body), other errors pass unchanged.
 */
export async function unlessUnavailable<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (isUnavailable(err)) throw new SearchUnavailable((err as Error).message || (err as Error).name);
    throw err;
  }
}
