import { Agent, fetch } from 'undici';
import type { Destination, EgressVerdict } from './egress-policy';
import { guardedConnector, type ResolveHost } from './guarded-connector';

// One HTTP task's call: through the guarded connector, redirects followed by hand (each hop checked
// again, a bounded number of them), the body read as a stream and refused past a size cap, and the
// whole call bounded by its connect and read timeouts.

export interface CallRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** Most redirects to follow; 0 returns a 3xx as the response. */
  maxRedirects: number;
}

export interface CallDeps {
  checkName?(host: string): EgressVerdict;
  check(d: Destination): EgressVerdict;
  maxResponseBytes: number;
  resolve?: ResolveHost;
  /** Aborts the call (Baton is stopping). */
  signal?: AbortSignal;
}

export interface CallResponse {
  kind: 'response';
  status: number;
  statusText: string;
  headers: Record<string, string[]>;
  contentType: string;
  text: string;
}

export interface CallFailure {
  kind: 'failure';
  reason: string;
  /** Status and headers when a response arrived but could not be taken (e.g. its body was too large). */
  partial?: { status: number; statusText: string; headers: Record<string, string[]> };
}

export type CallOutcome = CallResponse | CallFailure;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Request headers that carry credentials: not sent on to another origin after a redirect (as fetch does with Authorization). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function headersOf(res: { headers: { forEach(cb: (v: string, k: string) => void): void } }): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  res.headers.forEach((v, k) => (out[k] = [v]));
  return out;
}

/** Reads a body up to `max` bytes (after decompression, which fetch does); undefined when it is larger. */
async function readCapped(body: AsyncIterable<Uint8Array> & { cancel?(): Promise<void> }, max: number): Promise<Buffer | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest of the body is never read into memory.
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function describe(e: unknown): string {
  // fetch wraps connection errors as TypeError('fetch failed') with the real error as cause.
  const err = e instanceof Error && e.message === 'fetch failed' && e.cause instanceof Error ? e.cause : e;
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: string }).code;
  return `${err.name}: ${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`;
}

export async function performCall(req: CallRequest, deps: CallDeps): Promise<CallOutcome> {
  const budgetMs = req.connectTimeoutMs + req.readTimeoutMs;
  const deadline = AbortSignal.timeout(budgetMs);
  const signal = deps.signal ? AbortSignal.any([deadline, deps.signal]) : deadline;
  // One pool per call: its connector carries this task's connect timeout, and nothing outlives the task.
  const agent = new Agent({
    connect: guardedConnector({ checkName: deps.checkName, check: deps.check, connectTimeoutMs: req.connectTimeoutMs, resolve: deps.resolve }),
    headersTimeout: req.readTimeoutMs,
    bodyTimeout: req.readTimeoutMs,
  });
  let url = req.url;
  let method = req.method;
  let body = req.body;
  const headers = { ...req.headers };
  try {
    for (let hop = 0; ; hop++) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { kind: 'failure', reason: `invalid URI ${JSON.stringify(url)}` };
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        return { kind: 'failure', reason: `unsupported URI scheme ${parsed.protocol} (http and https only)` };
      const res = await fetch(parsed, { method, headers, body, redirect: 'manual', dispatcher: agent, signal });
      const location = res.headers.get('location');
      if (REDIRECTS.has(res.status) && location && req.maxRedirects > 0) {
        await res.body?.cancel();
        if (hop >= req.maxRedirects) return { kind: 'failure', reason: `more than ${req.maxRedirects} redirects (last to ${location})` };
        const next = new URL(location, parsed);
        // Fetch's rules: 303 becomes GET, as do 301/302 after a POST; the body goes with the method.
        if (res.status === 303 ? method !== 'HEAD' : (res.status === 301 || res.status === 302) && method === 'POST') {
          method = 'GET';
          body = undefined;
          for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
        }
        if (next.origin !== parsed.origin) for (const k of Object.keys(headers)) if (CREDENTIAL_HEADERS.includes(k.toLowerCase())) delete headers[k];
        url = next.href;
        continue;
      }
      const resHeaders = headersOf(res);
      const partial = { status: res.status, statusText: res.statusText, headers: resHeaders };
      const tooLarge = `response body is larger than ${deps.maxResponseBytes} bytes (BATON_HTTP_TASK_MAX_RESPONSE_BYTES)`;
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > deps.maxResponseBytes) {
        await res.body?.cancel();
        return { kind: 'failure', reason: tooLarge, partial };
      }
      const bytes = res.body ? await readCapped(res.body as never, deps.maxResponseBytes) : Buffer.alloc(0);
      if (!bytes) return { kind: 'failure', reason: tooLarge, partial };
      return { kind: 'response', ...partial, contentType: res.headers.get('content-type') ?? '', text: new TextDecoder().decode(bytes) };
    }
  } catch (e) {
    if (deps.signal?.aborted) return { kind: 'failure', reason: 'the call was abandoned: Baton is stopping' };
    if (deadline.aborted)
      return { kind: 'failure', reason: `no complete response within ${budgetMs} ms (connect ${req.connectTimeoutMs} ms + read ${req.readTimeoutMs} ms)` };
    return { kind: 'failure', reason: describe(e) };
  } finally {
    void agent.destroy().catch(() => undefined);
  }
}
