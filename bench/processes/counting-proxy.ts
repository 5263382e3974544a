import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from './free-port';

/** Path of a sidecar call reduced to what it does, e.g. `PUT /v1.0/actors/{type}/{id}/method/{name}` → `actors/WorkflowActor/method/update`. */
export function callCategory(method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  const p = path.split('/').filter(Boolean);
  // daprd → app: /actors/{type}/{id}/method/{name}, /actors/{type}/{id}/method/remind/{name}, /dapr/config, pub/sub routes
  // app → daprd: /v1.0/actors/{type}/{id}/{state|method|reminders|timers}/..., /v1.0/state/..., /v1.0/publish/..., /v1.0-alpha1/...
  const start = p[0]?.startsWith('v1.0') ? 1 : 0;
  const kind = p[start] ?? '';
  if (kind === 'actors') {
    const type = p[start + 1] ?? '?';
    const what = p[start + 3] ?? '';
    const name = what === 'method' || what === 'reminders' || what === 'timers' ? `/${p.slice(start + 4).join('/')}` : '';
    return `${method} actors/${type}/${what || 'deactivate'}${name}`;
  }
  if (kind === 'publish' || kind === 'state' || kind === 'invoke' || kind === 'bindings' || kind === 'metadata' || kind === 'healthz')
    return `${method} ${kind}/${p[start + 1] ?? ''}`;
  return `${method} ${p.slice(0, 2).join('/')}`;
}

export interface ProxyCounts {
  total: number;
  byCategory: Record<string, number>;
}

/**
 * An HTTP forwarder that counts every request passing through it, by category (counted, not guessed).
 * Placed between a Baton replica and its daprd in both directions (Baton → daprd on DAPR_HTTP_PORT,
 * daprd → Baton on --app-port); it adds one loopback hop to each call.
 */
export class CountingProxy {
  private total = 0;
  private readonly byCategory = new Map<string, number>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  private server: Server | undefined;
  port = 0;

  constructor(
    readonly name: string,
    private targetPort: number,
  ) {}

  /** Where calls go; settable after start, because daprd's app port must be known before Baton's port is. */
  setTarget(port: number): void {
    this.targetPort = port;
  }

  async start(): Promise<this> {
    this.port = await freePort();
    this.server = createServer((req, res) => this.forward(req, res));
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(this.port, '127.0.0.1', () => resolve());
    });
    return this;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    this.total++;
    const cat = callCategory(req.method ?? 'GET', req.url ?? '/');
    this.byCategory.set(cat, (this.byCategory.get(cat) ?? 0) + 1);
    const upstream = request({ host: '127.0.0.1', port: this.targetPort, method: req.method, path: req.url, headers: req.headers, agent: this.agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`counting proxy ${this.name}: ${e.message}`);
    });
    req.pipe(upstream);
  }

  counts(): ProxyCounts {
    return { total: this.total, byCategory: Object.fromEntries(this.byCategory) };
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** b − a per category (categories absent from a count as 0). */
export function countsBetween(a: ProxyCounts, b: ProxyCounts): ProxyCounts {
  const byCategory: Record<string, number> = {};
  for (const [k, v] of Object.entries(b.byCategory)) {
    const d = v - (a.byCategory[k] ?? 0);
    if (d > 0) byCategory[k] = d;
  }
  return { total: b.total - a.total, byCategory };
}
