import http from 'node:http';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createServer, type RunningServer } from '../../src/server';
import { tempDir } from './temp-dirs';

// An embedded Baton for the auth suites: every log line kept (trace level) so tests can look for
// secrets in them, and a raw HTTP client that sends any header (fetch refuses to set Host).

export const ADMIN_KEY = { keyId: 'root-admin', keySecret: 'the-first-admin-secret-0123456789' };

export interface AuthBaton {
  url: string;
  port: number;
  server: RunningServer;
  dataDir: string;
  /** Every log line written so far, as JSON text. */
  logs: string[];
  stop(): Promise<void>;
}

export async function startAuthBaton(env: Record<string, string> = {}): Promise<AuthBaton> {
  const dataDir = env.BATON_DATA_DIR ?? tempDir('baton-auth-test-');
  const logs: string[] = [];
  const cfg = loadConfig({ PORT: '0', BATON_DATA_DIR: dataDir, LOG_LEVEL: 'trace', BATON_HTTP_TASK_WORKERS: '1', ...env });
  const server = await createServer(cfg, pino({ level: 'trace' }, { write: (line: string) => void logs.push(line) }));
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    server,
    dataDir,
    logs,
    stop: () => server.close(),
  };
}

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** One request with exactly the given headers; a JSON body unless `raw` is given. */
export function raw(
  port: number,
  method: string,
  urlPath: string,
  opts: { headers?: Record<string, string>; body?: unknown; token?: string } = {},
): Promise<RawReply> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(opts.token ? { 'x-authorization': opts.token } : {}),
    ...opts.headers,
  };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        if ((res.headers['content-type'] ?? '').includes('json') && text) body = JSON.parse(text);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.end(payload);
    else req.end();
  });
}

/** JSON requests as one token, each body sent with its length (node's client sends a DELETE body unframed otherwise). */
export const requestsAs =
  (port: number, token: string) =>
  (method: string, path: string, body?: unknown): Promise<RawReply> =>
    raw(port, method, path, { token, body, headers: body === undefined ? {} : { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) } });

/** A token for a key id and secret, through POST /api/token. */
export async function tokenFor(port: number, key: { keyId: string; keySecret: string }): Promise<string> {
  const r = await raw(port, 'POST', '/api/token', { body: key });
  if (r.status !== 200) throw new Error(`POST /api/token answered ${r.status}: ${r.text}`);
  return r.body.token as string;
}
