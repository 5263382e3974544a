import { Pool } from 'undici';

/** The one HTTP client of the load process (keep-alive, no pipelining), shared by the Baton and ceiling drivers so ratios compare like with like. */
export function createPool(baseUrl: string, connections: number): Pool {
  const origin = new URL(baseUrl);
  if (origin.hostname !== '127.0.0.1') throw new Error(`the bench only targets 127.0.0.1, not ${origin.hostname}`);
  return new Pool(origin.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 300)}`);
  }
}
