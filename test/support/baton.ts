import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createServer, type RunningServer } from '../../src/server';
import { tempDir } from './temp-dirs';

/** An embedded Baton on a free port with a fresh data directory, for tests over real HTTP. */
export interface TestBaton {
  url: string;
  server: RunningServer;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The file's Baton: started before its first test and stopped after its last. `url()` answers inside
 * tests (and in clients built with it, which read it per request).
 */
export function useBaton(env: Record<string, string> = {}): { url: () => string } {
  let b: TestBaton | undefined;
  beforeAll(async () => {
    b = await startBaton(env);
  });
  afterAll(async () => {
    await b?.stop();
  });
  return {
    url: () => {
      if (!b) throw new Error('Baton is not started yet (useBaton: call url() inside a test)');
      return b.url;
    },
  };
}

export async function startBaton(env: Record<string, string> = {}): Promise<TestBaton> {
  const dataDir = env.BATON_DATA_DIR ?? tempDir('baton-test-');
  // HTTP tasks in tests call servers on 127.0.0.1, which Baton refuses unless allowed.
  const cfg = loadConfig({ PORT: '0', BATON_DATA_DIR: dataDir, LOG_LEVEL: 'silent', BATON_HTTP_TASK_WORKERS: '2', BATON_HTTP_TASK_ALLOW: '127.0.0.1', ...env });
  const server = await createServer(cfg, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  return {
    url: `http://127.0.0.1:${server.port}`,
    server,
    dataDir,
    async stop() {
      await server.close();
    },
  };
}

export interface Reply<T = unknown> {
  status: number;
  body: T;
  text: string;
  contentType: string;
}

/** Minimal JSON client: sends a JSON body (or a raw string with `raw`), returns status, parsed body and text. */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  opts: { raw?: string; contentType?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let payload: string | undefined;
  if (opts.raw !== undefined) {
    payload = opts.raw;
    headers['content-type'] = opts.contentType ?? 'application/json';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const signal = opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs);
  const res = await fetch(base + path, { method, headers, body: payload, signal });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (contentType.includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T, text, contentType };
}

/** Polls `fn` until it returns a truthy value or the limit passes (no fixed sleeps in tests). */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, limitMs = 20_000, everyMs = 50): Promise<T> {
  const until = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`condition not met within ${limitMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
