import type { IncomingHttpHeaders } from 'node:http';

// Keeps web pages of other origins from driving the API (pure: headers in, verdict out).
// - A request a browser marks as coming from another origin (Origin, Sec-Fetch-Site) is refused,
//   whatever its method (a poll is a GET that claims tasks), unless BATON_CORS_ORIGINS lists the
//   origin; then it is answered with CORS headers, preflight included. Clients that are not
//   browsers (SDKs, curl) send neither header and pass.
// - While auth is off, the Host header must be a configured name: a DNS-rebinding page reaches
//   127.0.0.1 under its own host name, which this refuses.
// Hand-written rather than the `cors` package: that package only decorates responses, and the
// refusal has to be decided here, on node:http ahead of express, for the hot path too.

export interface BrowserPolicy {
  corsOrigins: ReadonlySet<string>;
  /** Checked only while auth is off; 'any' turns the check off. */
  allowedHosts: ReadonlySet<string> | 'any';
  checkHost: boolean;
}

export type BrowserVerdict =
  { kind: 'pass'; headers?: Record<string, string> } | { kind: 'preflight'; headers: Record<string, string> } | { kind: 'refuse'; message: string };

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, DELETE';

/** Health checks come from probes that name the pod's address, not a configured host. */
const isHealthPath = (path: string): boolean => path === '/health' || path === '/api/health' || path === '/healthz';

/** The host name of a Host header value ("name:port", "[v6]:port"), lower case, without the port. */
export function hostOfHeader(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}

export function browserVerdict(method: string | undefined, path: string, headers: IncomingHttpHeaders, policy: BrowserPolicy): BrowserVerdict {
  const host = headers.host;
  if (policy.checkHost && policy.allowedHosts !== 'any' && host !== undefined && !isHealthPath(path)) {
    const name = hostOfHeader(host);
    if (!policy.allowedHosts.has(name))
      return {
        kind: 'refuse',
        message: `Host ${JSON.stringify(name)} is not allowed: with auth off Baton answers only the names in BATON_ALLOWED_HOSTS (and localhost), against DNS rebinding`,
      };
  }

  const origin = headers.origin;
  const site = headers['sec-fetch-site'];
  // Browsers set Sec-Fetch-Site themselves (pages cannot): 'same-origin' holds behind a proxy that rewrites Host too.
  const crossOrigin =
    site === 'same-origin' ? false : origin !== undefined ? originHost(origin) !== host?.toLowerCase() : site === 'cross-site' || site === 'same-site';
  if (!crossOrigin) return { kind: 'pass' };
  if (origin === undefined || !policy.corsOrigins.has(origin))
    return { kind: 'refuse', message: `Cross-origin request refused: origin ${JSON.stringify(origin ?? site)} is not listed in BATON_CORS_ORIGINS` };

  const cors = { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
  const requested = headers['access-control-request-method'];
  if (method === 'OPTIONS' && requested !== undefined) {
    const wanted = headers['access-control-request-headers'];
    return {
      kind: 'preflight',
      headers: {
        ...cors,
        'Access-Control-Allow-Methods': ALLOWED_METHODS,
        // The origin is trusted: it may send the headers it asks for (X-Authorization, Content-Type).
        ...(wanted ? { 'Access-Control-Allow-Headers': wanted } : {}),
        'Access-Control-Max-Age': '600',
      },
    };
  }
  return { kind: 'pass', headers: cors };
}
