import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import express, { type Request, type Response } from 'express';
import Redis from 'ioredis';
import { ActorPlacementRuntime, NoActorHost } from './dapr/actor-placement-runtime';
import { appUrl, type AppInstance, type AppSubscription } from './dapr/app-instance';
import { endToEndHeaders, HttpForwarder, type HttpReply } from './dapr/http-forwarder';
import { PubSubBroker, type CloudEventEnvelope } from './dapr/pubsub-broker';
import { DEFAULT_FAILURE_POLICY, ReminderScheduler, type FailurePolicy } from './dapr/reminder-scheduler';
import { parseDueTime, parseGoDuration, parsePeriod } from './dapr/schedule-times';

/**
 * A test double of the Dapr sidecars of a cluster: the part of Dapr's HTTP API Baton uses (actors,
 * reminders, pub/sub, service invocation, metadata), as daprd 1.18 answers it (dapr/dapr:
 * pkg/api/http/, pkg/actors/).
 *
 * Shape: ONE cluster object (placement + scheduler + pub/sub broker + actor state store) with ONE
 * sidecar HTTP port per app instance, as in Kubernetes where each replica has its own daprd.
 * `addApp` starts an instance's sidecar; point that app's DaprClient (or env DAPR_HTTP_PORT of a
 * child process) at `daprHttpPort`. The sidecar waits for the app port to accept connections,
 * reads GET /dapr/config and GET /dapr/subscribe once (as daprd does), then joins placement.
 *
 * Actor state lives in real Redis (`<prefix>state:<appId>||<type>||<id>||<key>`), reminders too
 * (`<prefix>reminders`), so both outlive app restarts. Pub/sub messages are held in memory by the
 * cluster object. Not covered: timers, reentrancy, etags, bulk publish, routing rules, rawPayload,
 * reminder ttl; each of these answers 400/404 rather than pretending.
 */

export interface DaprClusterDoubleOptions {
  /** Redis for actor state and reminders; default redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Distinct per test run. */
  keyPrefix: string;
  /** daprd's APP_API_TOKEN: sent to apps as `dapr-api-token`. */
  appApiToken?: string;
  /** daprd's DAPR_API_TOKEN: required from apps on the sidecar API. */
  daprApiToken?: string;
  /** How long an actor call waits for a host of its type before 404 ERR_ACTOR_NO_ADDRESS. Default 5 s. */
  placementWaitMs?: number;
  /** Redelivery delay of pub/sub messages. Default 200 ms. */
  pubsubRetryMs?: number;
  /** Period of the idle-deactivation sweep. Default 200 ms. */
  idleSweepMs?: number;
  log?: (line: string) => void;
}

export interface AddAppOptions {
  appId: string;
  appPort: number;
  appHost?: string;
  /** Sidecar HTTP port; 0 or absent picks a free one. */
  daprHttpPort?: number;
}

export interface SidecarHandle {
  appId: string;
  appPort: number;
  daprHttpPort: number;
  /** Resolves once the app answered /dapr/config and joined placement. */
  ready: Promise<void>;
}

const DEFAULT_IDLE_MS = 60 * 60_000;

export class DaprClusterDouble {
  private readonly apps: AppInstance[] = [];
  private readonly http = new HttpForwarder();
  private readonly redis: Redis;
  private readonly runtime: ActorPlacementRuntime;
  private readonly scheduler: ReminderScheduler;
  private readonly broker: PubSubBroker;
  private readonly sweep: NodeJS.Timeout;
  private readonly log: (line: string) => void;
  private roundRobin = 0;
  private closed = false;

  private constructor(private readonly opts: DaprClusterDoubleOptions) {
    this.log = opts.log ?? (() => undefined);
    this.redis = new Redis(opts.redisUrl ?? 'redis://127.0.0.1:6379');
    const appHeaders = (): Record<string, string> => (opts.appApiToken ? { 'dapr-api-token': opts.appApiToken } : {});
    this.runtime = new ActorPlacementRuntime(() => this.apps, this.http, {
      placementWaitMs: opts.placementWaitMs ?? 5000,
      appHeaders,
      log: this.log,
    });
    this.scheduler = new ReminderScheduler(this.redis, `${opts.keyPrefix}reminders`, this.runtime, appHeaders, this.log);
    this.broker = new PubSubBroker(() => this.apps, this.http, { retryMs: opts.pubsubRetryMs ?? 200, appHeaders, log: this.log });
    this.sweep = setInterval(() => this.runtime.sweepIdle(Date.now()), opts.idleSweepMs ?? 200);
  }

  /** Starts the cluster and re-loads reminders stored under the prefix by an earlier double. */
  static async start(opts: DaprClusterDoubleOptions): Promise<DaprClusterDouble> {
    const double = new DaprClusterDouble(opts);
    await double.scheduler.load();
    return double;
  }

  async addApp(o: AddAppOptions): Promise<SidecarHandle> {
    const app: AppInstance = {
      key: `${o.appHost ?? '127.0.0.1'}:${o.appPort}`,
      appId: o.appId,
      appHost: o.appHost ?? '127.0.0.1',
      appPort: o.appPort,
      daprHttpPort: 0,
      status: 'starting',
      entities: [],
      idleTimeoutMs: new Map(),
      subscriptions: [],
    };
    const server = createServer(this.sidecarApi(app));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.daprHttpPort ?? 0, '127.0.0.1', () => resolve());
    });
    app.server = server;
    app.daprHttpPort = (server.address() as { port: number }).port;
    this.apps.push(app);
    const ready = this.connectApp(app);
    ready.catch(() => undefined); // surfaced to whoever awaits handle.ready
    return { appId: app.appId, appPort: app.appPort, daprHttpPort: app.daprHttpPort, ready };
  }

  /** The app instance (and its sidecar) is gone, as when a pod is killed: its actors move elsewhere. */
  async removeApp(appPort: number): Promise<void> {
    const gone = this.apps.filter((a) => a.appPort === appPort && a.status !== 'removed');
    for (const app of gone) {
      app.status = 'removed';
      this.runtime.forgetApp(app);
      await closeServer(app.server);
    }
    this.runtime.rebalance();
  }

  /** The app instance that hosts (type, id) now, if any. */
  placementOf(type: string, id: string): number | undefined {
    return this.runtime.ownerOf(type, id)?.appPort;
  }

  activeActors(): { type: string; id: string; appPort: number }[] {
    return this.runtime.activations().map((a) => ({ type: a.type, id: a.id, appPort: a.app.appPort }));
  }

  get reminderFires(): ReminderScheduler['fires'] {
    return this.scheduler.fires;
  }

  get deliveryAttempts(): PubSubBroker['attempts'] {
    return this.broker.attempts;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweep);
    this.scheduler.close();
    this.broker.close();
    for (const app of this.apps) {
      app.status = 'removed';
      await closeServer(app.server);
    }
    await this.http.close();
    await this.redis.quit();
  }

  /** Deletes every Redis key of this prefix (actor state and reminders). */
  async purge(): Promise<void> {
    const keys = await this.redis.keys(`${this.opts.keyPrefix}*`);
    if (keys.length) await this.redis.del(...keys);
  }

  // ---- app channel start-up ----

  private async connectApp(app: AppInstance): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!(await portOpen(app.appHost, app.appPort))) {
      if (app.status === 'removed' || this.closed) throw new Error(`sidecar of ${app.key} removed before the app listened`);
      if (Date.now() > deadline) throw new Error(`app ${app.key} never listened`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const headers = { ...this.appHeaders(), 'dapr-app-id': app.appId };
    const config = await this.http.send(appUrl(app, '/dapr/config'), 'GET', headers).catch(() => undefined);
    if (config?.status === 200) this.applyConfig(app, JSON.parse(config.body.toString('utf8') || '{}'));
    const subs = await this.http.send(appUrl(app, '/dapr/subscribe'), 'GET', headers).catch(() => undefined);
    if (subs?.status === 200) app.subscriptions = parseSubscriptions(JSON.parse(subs.body.toString('utf8') || '[]'));
    if (app.status === 'removed') return;
    app.status = 'ready';
    this.log(`app ${app.appId}@${app.key} ready: actors [${app.entities.join(', ')}], ${app.subscriptions.length} subscriptions`);
    this.runtime.rebalance();
  }

  private applyConfig(app: AppInstance, cfg: Record<string, unknown>): void {
    app.entities = Array.isArray(cfg.entities) ? cfg.entities.map(String) : [];
    const idle = (v: unknown): number | undefined => (typeof v === 'string' ? parseGoDuration(v) : undefined);
    const defaultIdle = idle(cfg.actorIdleTimeout) ?? DEFAULT_IDLE_MS;
    for (const t of app.entities) app.idleTimeoutMs.set(t, defaultIdle);
    for (const entry of Array.isArray(cfg.entitiesConfig) ? cfg.entitiesConfig : []) {
      const ms = idle((entry as Record<string, unknown>).actorIdleTimeout);
      const types = (entry as { entities?: unknown }).entities;
      if (ms !== undefined && Array.isArray(types)) for (const t of types) app.idleTimeoutMs.set(String(t), ms);
    }
  }

  private appHeaders(): Record<string, string> {
    return this.opts.appApiToken ? { 'dapr-api-token': this.opts.appApiToken } : {};
  }

  // ---- the sidecar HTTP API of one app instance ----

  private sidecarApi(app: AppInstance): express.Express {
    const api = express();
    api.use(express.raw({ type: () => true, limit: '16mb' }));
    api.get('/v1.0/healthz/outbound', (_req, res) => void res.status(204).end());
    api.get('/v1.0/healthz', (_req, res) => void res.status(app.status === 'ready' ? 204 : 500).end());
    api.use((req, res, next) => {
      if (!this.opts.daprApiToken || req.get('dapr-api-token') === this.opts.daprApiToken) return next();
      res.status(401).json({ errorCode: 'ERR_API_TOKEN', message: 'invalid api token' });
    });
    api.get('/v1.0/metadata', (_req, res) => void res.json(this.metadata(app)));
    api.all('/v1.0/actors/:type/:id/method/*method', (req, res) => this.actorInvoke(req, res));
    api.post('/v1.0/actors/:type/:id/state', (req, res) => this.stateTransaction(app, req, res));
    api.put('/v1.0/actors/:type/:id/state', (req, res) => this.stateTransaction(app, req, res));
    api.get('/v1.0/actors/:type/:id/state/:key', (req, res) => this.stateGet(app, req, res));
    api.post('/v1.0/actors/:type/:id/reminders/*name', (req, res) => this.reminderPut(app, req, res));
    api.put('/v1.0/actors/:type/:id/reminders/*name', (req, res) => this.reminderPut(app, req, res));
    api.get('/v1.0/actors/:type/:id/reminders/*name', (req, res) => this.reminderGet(app, req, res));
    api.delete('/v1.0/actors/:type/:id/reminders/*name', (req, res) => this.reminderDelete(app, req, res));
    api.post('/v1.0/publish/:pubsub/*topic', (req, res) => this.publish(app, req, res));
    api.put('/v1.0/publish/:pubsub/*topic', (req, res) => this.publish(app, req, res));
    api.all('/v1.0/invoke/:appId/method/*path', (req, res) => this.invokeService(req, res, String(req.params.appId), `/${joinWildcard(req.params.path)}`));
    api.use((req, res) => {
      const target = req.get('dapr-app-id'); // HTTP proxy form of service invocation
      if (target) return this.invokeService(req, res, target, req.path);
      res.status(404).json({ errorCode: 'ERR_NOT_IN_DOUBLE', message: `${req.method} ${req.path} is not part of the Dapr sidecar double` });
    });
    return api;
  }

  private metadata(app: AppInstance): Record<string, unknown> {
    const active = new Map<string, number>();
    for (const a of this.runtime.activations()) if (a.app === app) active.set(a.type, (active.get(a.type) ?? 0) + 1);
    return {
      id: app.appId,
      runtimeVersion: 'sidecar-double',
      enabledFeatures: [],
      actorRuntime: {
        runtimeStatus: 'RUNNING',
        hostReady: app.status === 'ready',
        placement: 'placement: connected',
        activeActors: app.entities.map((type) => ({ type, count: active.get(type) ?? 0 })),
      },
      components: [{ name: 'actorstore', type: 'state.redis', version: 'v1', capabilities: ['ETAG', 'TRANSACTIONAL', 'ACTOR'] }],
      subscriptions: app.subscriptions.map((s) => ({
        pubsubname: s.pubsubname,
        topic: s.topic,
        rules: [{ path: s.route }],
        deadLetterTopic: s.deadLetterTopic ?? '',
      })),
      appConnectionProperties: { port: app.appPort, protocol: 'http', channelAddress: app.appHost },
    };
  }

  private async actorInvoke(req: Request, res: Response): Promise<void> {
    const { type, id } = req.params as Record<string, string>;
    const method = joinWildcard(req.params.method);
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const headers = endToEndHeaders(req.headers);
    delete headers['dapr-api-token'];
    try {
      const reply = await this.runtime.call(type, id, `/method/${encodeURIComponent(method)}${query}`, headers, bodyOf(req));
      relayActorReply(res, reply);
    } catch (err) {
      if (err instanceof NoActorHost) res.status(404).json({ errorCode: 'ERR_ACTOR_NO_ADDRESS', message: err.message });
      else res.status(500).json({ errorCode: 'ERR_ACTOR_INVOKE_METHOD', message: `error invoke actor method: ${String(err)}` });
    }
  }

  private hosts(app: AppInstance, type: string, res: Response, what: string): boolean {
    if (app.entities.includes(type)) return true;
    res.status(what === 'reminders' ? 403 : 400).json({
      errorCode: what === 'reminders' ? 'ERR_ACTOR_REMINDER_NON_HOSTED' : 'ERR_ACTOR_INSTANCE_MISSING',
      message: `operations on actor ${what} are only possible on hosted actor types (${type})`,
    });
    return false;
  }

  private stateKey(app: AppInstance, type: string, id: string, key: string): string {
    return `${this.opts.keyPrefix}state:${app.appId}||${type}||${id}||${key}`;
  }

  private async stateTransaction(app: AppInstance, req: Request, res: Response): Promise<void> {
    const { type, id } = req.params as Record<string, string>;
    if (!this.hosts(app, type, res, 'state')) return;
    const ops = parseJson(req) as { operation?: string; request?: { key?: string; value?: unknown; etag?: string } }[] | undefined;
    if (!Array.isArray(ops)) return void res.status(400).json({ errorCode: 'ERR_MALFORMED_REQUEST', message: 'expected an array of operations' });
    const multi = this.redis.multi();
    for (const op of ops) {
      const key = op.request?.key;
      if (typeof key !== 'string' || key === '') return void res.status(400).json({ errorCode: 'ERR_MALFORMED_REQUEST', message: 'operation without key' });
      if (op.request?.etag !== undefined)
        return void res.status(400).json({ errorCode: 'ERR_NOT_IN_DOUBLE', message: 'etags are not supported by the double' });
      if (op.operation === 'upsert') multi.set(this.stateKey(app, type, id, key), JSON.stringify(op.request?.value ?? null));
      else if (op.operation === 'delete') multi.del(this.stateKey(app, type, id, key));
      else return void res.status(400).json({ errorCode: 'ERR_MALFORMED_REQUEST', message: `unknown operation ${String(op.operation)}` });
    }
    await multi.exec();
    res.status(204).end();
  }

  private async stateGet(app: AppInstance, req: Request, res: Response): Promise<void> {
    const { type, id, key } = req.params as Record<string, string>;
    if (!this.hosts(app, type, res, 'state')) return;
    const value = await this.redis.get(this.stateKey(app, type, id, key));
    if (value === null) return void res.status(204).end();
    res.status(200).type('application/json').send(value);
  }

  private async reminderPut(app: AppInstance, req: Request, res: Response): Promise<void> {
    const { type, id } = req.params as Record<string, string>;
    const name = joinWildcard(req.params.name);
    if (!this.hosts(app, type, res, 'reminders')) return;
    const body = (parseJson(req) ?? {}) as Record<string, unknown>;
    const bad = (message: string): void => void res.status(400).json({ errorCode: 'ERR_MALFORMED_REQUEST', message });
    if (body.ttl !== undefined) return bad('reminder ttl is not supported by the double');
    const dueAt = parseDueTime(body.dueTime as string | undefined, Date.now());
    if (dueAt === undefined) return bad(`invalid dueTime ${String(body.dueTime)}`);
    const period = parsePeriod(body.period as string | undefined);
    if (period === undefined) return bad(`unsupported period format ${String(body.period)}`);
    const failurePolicy = parseFailurePolicy(body.failure_policy);
    if (!failurePolicy) return bad('invalid failure_policy');
    const created = await this.scheduler.put({ type, id, name, dueAt, period, data: body.data, failurePolicy }, body.overwrite !== false);
    if (!created) return void res.status(409).json({ errorCode: 'ERR_ACTOR_REMINDER_CREATE', message: 'actor reminder already exists' });
    res.status(204).end();
  }

  private reminderGet(app: AppInstance, req: Request, res: Response): void {
    const { type, id } = req.params as Record<string, string>;
    if (!this.hosts(app, type, res, 'reminders')) return;
    const rec = this.scheduler.get(type, id, joinWildcard(req.params.name));
    if (!rec) return void res.status(500).json({ errorCode: 'ERR_ACTOR_REMINDER_GET', message: 'reminder not found' });
    res.json({
      actorID: id,
      actorType: type,
      data: rec.data ?? null,
      dueTime: new Date(rec.dueAt).toISOString(),
      period: rec.period ? `${rec.period.everyMs}ms` : '',
      ttl: '',
    });
  }

  private async reminderDelete(app: AppInstance, req: Request, res: Response): Promise<void> {
    const { type, id } = req.params as Record<string, string>;
    if (!this.hosts(app, type, res, 'reminders')) return;
    await this.scheduler.delete(type, id, joinWildcard(req.params.name));
    res.status(204).end();
  }

  private publish(app: AppInstance, req: Request, res: Response): void {
    const pubsub = String(req.params.pubsub);
    const topic = joinWildcard(req.params.topic);
    if (req.query['metadata.rawPayload'] === 'true')
      return void res.status(400).json({ errorCode: 'ERR_NOT_IN_DOUBLE', message: 'rawPayload is not supported by the double' });
    const contentType = (req.get('content-type') ?? 'text/plain').split(';')[0].trim().toLowerCase();
    const raw = bodyOf(req) ?? Buffer.alloc(0);
    let event: CloudEventEnvelope;
    try {
      if (contentType === 'application/cloudevents+json') {
        const given = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        event = {
          specversion: '1.0',
          source: app.appId,
          type: 'com.dapr.event.sent',
          datacontenttype: 'application/json',
          ...given,
          id: typeof given.id === 'string' && given.id ? given.id : randomUUID(),
        };
      } else {
        const text = raw.toString('utf8');
        const data = contentType.endsWith('json') ? JSON.parse(text) : text;
        event = { specversion: '1.0', id: randomUUID(), source: app.appId, type: 'com.dapr.event.sent', datacontenttype: contentType, data };
      }
    } catch {
      return void res.status(400).json({ errorCode: 'ERR_PUBSUB_EVENTS_SER', message: 'body is not valid JSON for its content type' });
    }
    this.broker.publish(pubsub, topic, { ...event, topic, pubsubname: pubsub });
    res.status(204).end();
  }

  private async invokeService(req: Request, res: Response, target: string, path: string): Promise<void> {
    const appId = target.split('.')[0]; // `<app-id>.<namespace>` addresses the same app here
    const candidates = this.apps.filter((a) => a.appId === appId && a.status === 'ready');
    if (candidates.length === 0) return void res.status(500).json({ errorCode: 'ERR_DIRECT_INVOKE', message: `no ready instance of app ${appId}` });
    const app = candidates[this.roundRobin++ % candidates.length];
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const headers = { ...endToEndHeaders(req.headers), ...this.appHeaders() };
    delete headers['dapr-app-id'];
    try {
      const reply = await this.http.send(appUrl(app, `${path}${query}`), req.method, headers, bodyOf(req));
      res.status(reply.status).set(reply.headers).send(reply.body);
    } catch (err) {
      res.status(500).json({ errorCode: 'ERR_DIRECT_INVOKE', message: String(err) });
    }
  }
}

const joinWildcard = (v: unknown): string => (Array.isArray(v) ? v.join('/') : String(v ?? ''));

const bodyOf = (req: Request): Buffer | undefined => (Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined);

const parseJson = (req: Request): unknown => {
  const b = bodyOf(req);
  if (!b) return undefined;
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
};

/** 200 passes through; an app error is relayed verbatim only with X-DaprErrorResponseHeader. */
const relayActorReply = (res: Response, reply: HttpReply): void => {
  if (reply.status === 200) return void res.status(200).set(reply.headers).send(reply.body);
  if (reply.headers['x-daprerrorresponseheader'] !== undefined) return void res.status(reply.status).set(reply.headers).send(reply.body);
  res.status(500).json({ errorCode: 'ERR_ACTOR_INVOKE_METHOD', message: `error from actor service: (${reply.status}) ${reply.body.toString('utf8')}` });
};

const parseFailurePolicy = (v: unknown): FailurePolicy | undefined => {
  if (v === undefined || v === null) return DEFAULT_FAILURE_POLICY;
  if (typeof v !== 'object') return undefined;
  const p = v as { drop?: unknown; constant?: { interval?: unknown; max_retries?: unknown } };
  if (p.drop !== undefined) return { kind: 'drop' };
  if (p.constant && typeof p.constant === 'object') {
    const intervalMs = typeof p.constant.interval === 'string' ? parseGoDuration(p.constant.interval) : undefined;
    if (intervalMs === undefined) return undefined;
    const max = p.constant.max_retries;
    return { kind: 'constant', intervalMs, ...(typeof max === 'number' ? { maxRetries: max } : {}) };
  }
  return undefined;
};

const parseSubscriptions = (doc: unknown): AppSubscription[] => {
  if (!Array.isArray(doc)) return [];
  return doc.flatMap((s: Record<string, unknown>) => {
    const routes = (s.routes ?? {}) as { default?: unknown; rules?: { path?: unknown }[] };
    const route = typeof s.route === 'string' ? s.route : typeof routes.default === 'string' ? routes.default : routes.rules?.[0]?.path;
    if (typeof s.pubsubname !== 'string' || typeof s.topic !== 'string' || typeof route !== 'string') return [];
    return [
      {
        pubsubname: s.pubsubname,
        topic: s.topic,
        route: route.startsWith('/') ? route : `/${route}`,
        ...(typeof s.deadLetterTopic === 'string' ? { deadLetterTopic: s.deadLetterTopic } : {}),
      },
    ];
  });
};

const portOpen = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });

const closeServer = async (server: Server | undefined): Promise<void> => {
  if (!server?.listening) return;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
};
