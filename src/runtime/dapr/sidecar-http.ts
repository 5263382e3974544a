import { context, propagation } from '@opentelemetry/api';
import { Agent, request } from 'undici';

/** One answer of daprd's HTTP API: status and the raw body text. */
export interface SidecarReply {
  status: number;
  body: string;
}

export interface SidecarHttpOptions {
  /** daprd's HTTP port on 127.0.0.1 (DAPR_HTTP_PORT). */
  port: number;
  /** DAPR_API_TOKEN: sent as `dapr-api-token` on every call when daprd requires it. */
  apiToken?: string;
  /** Default limit of one call, headers and body included. */
  timeoutMs: number;
}

/**
 * Plain HTTP to the sidecar on a keep-alive pool. Hand-written over undici because the @dapr/dapr
 * client exposes no generic actor call, no per-call timeout and no status codes (only thrown text).
 */
export class SidecarHttp {
  private readonly agent: Agent;
  private readonly origin: string;
  private readonly inFlight = new Set<Promise<SidecarReply>>();

  constructor(private readonly opts: SidecarHttpOptions) {
    this.origin = `http://127.0.0.1:${opts.port}`;
    this.agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  }

  /** Sends `body` as JSON (undefined: no body). Transport failures and timeouts reject. */
  async call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs = this.opts.timeoutMs): Promise<SidecarReply> {
    const headers: Record<string, string> = {};
    if (this.opts.apiToken) headers['dapr-api-token'] = this.opts.apiToken;
    // The caller's span travels with an actor call (traceparent); a no-op unless traces are exported.
    propagation.inject(context.active(), headers);
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const reply = (async (): Promise<SidecarReply> => {
      const res = await request(`${this.origin}${path}`, {
        method,
        headers,
        body: payload,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.statusCode, body: await res.body.text() };
    })();
    this.inFlight.add(reply);
    try {
      return await reply;
    } finally {
      this.inFlight.delete(reply);
    }
  }

  /** Resolves once daprd reports its outbound side ready (components loaded), polling until `withinMs`. */
  async waitReady(withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      try {
        const r = await this.call('GET', '/v1.0/healthz/outbound', undefined, 2000);
        if (r.status >= 200 && r.status < 300) return;
      } catch {
        // not listening yet
      }
      if (Date.now() >= deadline) throw new Error(`daprd on ${this.origin} not ready after ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Lets calls in flight finish for `graceMs`, then abandons them: the last step of a stop must not wait out a call's
   * own limit (60 s) on a sidecar that no longer answers this replica, past the process's exit deadline.
   */
  async close(graceMs = 1000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), late]);
    clearTimeout(timer);
    // undici's close() waits for every call and, once begun, keeps destroy() from aborting them: destroy when any is left.
    if (this.inFlight.size > 0) await this.agent.destroy(new Error('sidecar client closed while the call was in flight'));
    else await this.agent.close();
  }
}
