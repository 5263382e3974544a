import { BalancedPool, Pool } from 'undici';

/** What the load process sends requests through: one server's pool, or several servers' balanced pool. */
export type HttpPool = Pick<Pool, 'request' | 'close'>;

const POOL_OPTIONS = { pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 };

const origin = (baseUrl: string): string => {
  const u = new URL(baseUrl);
  if (u.hostname !== '127.0.0.1') throw new Error(`the bench only targets 127.0.0.1, not ${u.hostname}`);
  return u.origin;
};

/**
 * The one HTTP client of the load process (keep-alive, no pipelining), shared by every target so ratios
 * compare like with like. Several URLs (replicas of one cluster) share the load through undici's BalancedPool.
 */
export function createPool(baseUrl: string | string[], connections: number): HttpPool {
  const urls = typeof baseUrl === 'string' ? [baseUrl] : baseUrl;
  if (urls.length === 1) return new Pool(origin(urls[0] as string), { ...POOL_OPTIONS, connections });
  return new BalancedPool(urls.map(origin), { ...POOL_OPTIONS, connections: Math.ceil(connections / urls.length) });
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
