import { Agent, request } from 'undici';

export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-authenticate',
  'expect',
]);

/** Copies end-to-end headers of an incoming request or response (hop-by-hop ones are per connection). */
export const endToEndHeaders = (headers: Record<string, string | string[] | undefined>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k.toLowerCase())) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
};

/** The double's HTTP client towards apps; no timeouts, like daprd without a resiliency policy. */
export class HttpForwarder {
  private readonly agent = new Agent({ keepAliveTimeout: 2_000, headersTimeout: 0, bodyTimeout: 0 });

  async send(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<HttpReply> {
    const res = await request(url, {
      method: method as 'GET',
      headers,
      body: body && body.length > 0 ? body : undefined,
      dispatcher: this.agent,
    });
    const data = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, headers: endToEndHeaders(res.headers as Record<string, string | string[] | undefined>), body: data };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
