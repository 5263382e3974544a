import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { DaprActorHost } from '../../../src/runtime/dapr/dapr-actor-host';
import { SidecarHttp } from '../../../src/runtime/dapr/sidecar-http';
import { ActorDeactivated, type Actor, type ActorContext } from '../../../src/runtime/ports';
import { DaprEventBus } from '../../../src/events/dapr/dapr-event-bus';
import type { DeliveryDedupe } from '../../../src/events/dapr/delivery-dedupe';
import type { PublishedEvent } from '../../../src/events/ports';
import type { TaskCompletionMessage } from '../../../src/events/dapr/task-completion-message';

/**
 * A tiny app hosting a `Counter` actor (and a short-lived `Ephemeral` one) through the real
 * DaprActorHost and DaprEventBus, for exercising the sidecar double and a real daprd.
 */
export interface CounterAppOptions {
  name: string;
  appId: string;
  port: number;
  daprHttpPort: number;
  daprHost?: string;
  appApiToken?: string;
  daprApiToken?: string;
  dedupe?: DeliveryDedupe;
  externalEvents?: string[];
  /** Interface to listen on; 0.0.0.0 when a container must reach the app. Default 127.0.0.1. */
  listenHost?: string;
}

export interface CounterApp {
  name: string;
  port: number;
  host: DaprActorHost;
  bus: DaprEventBus;
  client: DaprClient;
  activations: string[];
  deactivations: string[];
  /** Reminder turns seen: `<id>/<name>`. */
  reminders: string[];
  /** Reminders daprd delivered (a recoverable one fired from memory never shows here): `<type>/<id>/<name>`. */
  reminderDeliveries: string[];
  /** Reminder turns still to fail on purpose. */
  failReminders: { left: number };
  /** Largest number of turns seen running at once on one actor id. */
  maxConcurrentTurns: number;
  /** Actor method calls daprd delivered to this app: `<type>/<id>/<method>`. */
  deliveries: string[];
  /** Results of the calls `callSelfLater` made. */
  selfCalls: unknown[];
  events: PublishedEvent[];
  completions: TaskCompletionMessage[];
  /** Incoming events still to fail on purpose. */
  failEvents: { left: number };
  close(): Promise<void>;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const startCounterApp = async (o: CounterAppOptions): Promise<CounterApp> => {
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const client = new DaprClient({
    daprHost: o.daprHost ?? '127.0.0.1',
    daprPort: String(o.daprHttpPort),
    communicationProtocol: CommunicationProtocolEnum.HTTP,
    daprApiToken: o.daprApiToken,
    logger: { level: LogLevel.Error },
  });
  const sidecar = new SidecarHttp({ port: o.daprHttpPort, apiToken: o.daprApiToken, timeoutMs: 30_000 });
  const host = new DaprActorHost({
    sidecar,
    log,
    appApiToken: o.appApiToken,
    actorIdleTimeout: '1h',
    entitiesConfig: { Ephemeral: { actorIdleTimeout: '500ms' } },
    reminderRetryMs: 300,
    recoverableRemindersInMemory: true,
  });
  const bus = new DaprEventBus({
    client,
    log,
    pubsubName: 'events',
    completionTopic: 'task-completions',
    internalTopic: 'baton-events',
    externalEvents: () => o.externalEvents ?? [],
    appApiToken: o.appApiToken,
    dedupe: o.dedupe,
  });

  const app: CounterApp = {
    name: o.name,
    port: o.port,
    host,
    bus,
    client,
    activations: [],
    deactivations: [],
    reminders: [],
    reminderDeliveries: [],
    failReminders: { left: 0 },
    maxConcurrentTurns: 0,
    deliveries: [],
    selfCalls: [],
    events: [],
    completions: [],
    failEvents: { left: 0 },
    close: async () => undefined,
  };
  const running = new Map<string, number>();

  const counter = (ctx: ActorContext): Actor => {
    const state = ctx.state!;
    const inTurn = async <T>(work: () => Promise<T>): Promise<T> => {
      const n = (running.get(ctx.id) ?? 0) + 1;
      running.set(ctx.id, n);
      app.maxConcurrentTurns = Math.max(app.maxConcurrentTurns, n);
      try {
        return await work();
      } finally {
        running.set(ctx.id, (running.get(ctx.id) ?? 1) - 1);
      }
    };
    return {
      onActivate: async () => void app.activations.push(`${ctx.type}/${ctx.id}`),
      onDeactivate: async () => void app.deactivations.push(`${ctx.type}/${ctx.id}`),
      // Every turn reads its state from daprd's actor state store: no activation's memory to be superseded.
      holdsClaim: async () => true,
      invoke: (method, arg) =>
        inTurn(async () => {
          switch (method) {
            case 'increment': {
              const before = (await state.get<number>('count')) ?? 0;
              await pause(3); // widen the read-modify-write window: only turn-based calls keep the count exact
              const count = before + ((arg as { by?: number } | undefined)?.by ?? 1);
              await state.transact([{ operation: 'upsert', key: 'count', value: count }]);
              return { count, host: o.name };
            }
            case 'get':
              return { count: (await state.get<number>('count')) ?? 0, fired: (await state.get<number>('fired')) ?? 0, host: o.name };
            case 'arm':
              await ctx.setReminder('wake', Date.now() + (arg as { inMs: number }).inMs);
              return null;
            case 'disarm':
              await ctx.setReminder('wake', null);
              return null;
            case 'armRecoverable':
              await ctx.setRecoverableReminder!('soon', Date.now() + (arg as { inMs: number }).inMs);
              return null;
            case 'disarmRecoverable':
              await ctx.setRecoverableReminder!('soon', null);
              return null;
            case 'echo':
              return arg;
            case 'callSelfLater':
              // A turn of its own after this one (never awaited inside the turn).
              void ctx.callSelf!('increment', arg).then(
                (r) => app.selfCalls.push(r),
                (e: unknown) => app.selfCalls.push(e),
              );
              return null;
            case 'fail':
              throw Object.assign(new Error('boom'), { code: 'E_COUNTER', status: 409 });
            case 'fence':
              throw new ActorDeactivated('a newer writer took over');
            case 'reset':
              await state.transact([
                { operation: 'delete', key: 'count' },
                { operation: 'delete', key: 'fired' },
              ]);
              return null;
            default:
              throw new Error(`unknown method ${method}`);
          }
        }),
      onReminder: (name) =>
        inTurn(async () => {
          app.reminders.push(`${ctx.id}/${name}`);
          if (app.failReminders.left > 0) {
            app.failReminders.left -= 1;
            throw new Error('reminder turn failed on purpose');
          }
          const fired = ((await state.get<number>('fired')) ?? 0) + 1;
          await state.transact([{ operation: 'upsert', key: 'fired', value: fired }]);
        }),
    };
  };
  host.register('Counter', counter);
  host.register('Ephemeral', counter);

  const handleFailure = (): void => {
    if (app.failEvents.left > 0) {
      app.failEvents.left -= 1;
      throw new Error('event handler failed on purpose');
    }
  };
  bus.subscribe(async (e) => {
    handleFailure();
    app.events.push(e);
  });
  bus.onTaskCompletion(async (m) => {
    handleFailure();
    app.completions.push(m);
  });

  const web = express();
  web.use((req, _res, next) => {
    const m = /^\/actors\/([^/]+)\/([^/]+)\/method\/([^/]+)$/.exec(req.path);
    if (m && req.method === 'PUT') app.deliveries.push(`${m[1]}/${m[2]}/${m[3]}`);
    const r = /^\/actors\/([^/]+)\/([^/]+)\/method\/remind\/(.+)$/.exec(req.path);
    if (r && req.method === 'PUT') app.reminderDeliveries.push(`${r[1]}/${r[2]}/${r[3]}`);
    next();
  });
  web.use(host.router());
  web.use(bus.router());
  web.get('/hello', (req, res) => void res.json({ hello: o.name, query: req.query, token: req.get('dapr-api-token') ?? null }));
  web.post('/echo-body', express.json(), (req, res) => void res.status(201).json({ got: req.body }));

  const server: Server = createServer(web);
  await new Promise<void>((resolve) => server.listen(o.port, o.listenHost ?? '127.0.0.1', () => resolve()));
  app.port = (server.address() as AddressInfo).port;
  app.close = async () => {
    await host.stop();
    await bus.close();
    await sidecar.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  return app;
};

/** A TCP port free right now (for wiring an app and its sidecar before either listens). */
export const freePort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
};

/** Polls `probe` until it returns a value other than undefined (generous limit, no fixed sleeps in tests). */
export const eventually = async <T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(25);
  }
};
