import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import {
  ActorDeactivated,
  HostStopping,
  OutcomeUnknown,
  type Actor,
  type ActorContext,
  type ActorFactory,
  type ActorHost,
  type ActorStateStore,
  type InProcessTurn,
} from '../ports';
import { CallInsideTurn, currentTurn, inTurn } from '../turn-context';
import { serializeActorError, type ErrorReviver } from './actor-errors';
import { requireDaprAppToken } from './app-token';
import { isRetriableRouting, mayHaveRun, SidecarActorApi } from './sidecar-api';
import type { SidecarHttp } from './sidecar-http';
import { TurnQueue } from './turn-queue';
import { SelfProbe } from './self-probe';
import { MAX_TIMER_MS } from '../../lib/periodic-loop';
import type { LivenessPolicy } from '../liveness';

type Log = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/** Per-type overrides served in `entitiesConfig` of GET /dapr/config (Go duration strings, no `d` unit). */
export interface ActorTypeConfig {
  actorIdleTimeout?: string;
  drainOngoingCallTimeout?: string;
}

export interface DaprActorHostOptions {
  sidecar: SidecarHttp;
  log: Log;
  /** daprd's APP_API_TOKEN: when set, every app-channel call must carry it as `dapr-api-token`. */
  appApiToken?: string;
  actorIdleTimeout?: string;
  drainOngoingCallTimeout?: string;
  entitiesConfig?: Record<string, ActorTypeConfig>;
  /** Interval of the retry-forever failure policy of every reminder, and the re-arm delay after a failed reminder turn. */
  reminderRetryMs?: number;
  /** How long `invoke` keeps retrying failures that happened before any turn ran (placement not ready, sidecar restarting). */
  routingRetryBudgetMs?: number;
  /** Maps a remote actor error (by name) to the caller's own error class. */
  reviveError?: ErrorReviver;
  maxBodyBytes?: number;
  /** Limit of one actor call made through the sidecar, its wait for the turn included. */
  invokeTimeoutMs?: number;
  /**
   * At stop, how long /healthz answers 503 while actor calls are still served, so daprd's app
   * health check unregisters this replica from placement before its actors are deactivated.
   */
  drainMs?: number;
  /**
   * Offer `setRecoverableReminder` (in-memory timers while an activation lives, registered with daprd
   * when it ends). Only when something re-derives them after a crash: the recovery scan.
   */
  recoverableRemindersInMemory?: boolean;
  /**
   * At stop, how long deactivating this replica's actors may take in all (turns in flight included);
   * past it the host stops anyway: the store's fence and the recovery scan cover what was left.
   */
  stopWithinMs?: number;
  /**
   * At stop, the limit of each reminder registration: daprd 1.18.2 stops answering actor calls once
   * the app reports unhealthy, and the recovery scan re-arms what a failed registration leaves.
   */
  stopCallTimeoutMs?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
  /**
   * A self-probe: every `intervalMs` a call of the probe actor type through the sidecar, limited to
   * `timeoutMs`; failing as the policy says makes `healthy()` false. Absent: no probe.
   */
  liveness?: LivenessPolicy & { intervalMs: number; timeoutMs: number };
}

/** The actor type of the liveness self-probe: a call of it passes through placement like any other. */
export const PROBE_ACTOR_TYPE = 'BatonProbe';
/** Probes cycle over a few ids: spread over the replicas, without an activation per probe. */
const PROBE_IDS = 16;

interface Activation {
  type: string;
  id: string;
  actor: Actor;
  /** The due time each reminder was last armed with in this activation; skips identical re-registration. */
  armed: Map<string, number | null>;
  /** Recoverable reminders held as timers of this activation; registered with daprd when it ends. */
  local: Map<string, { dueAt: number; timer: NodeJS.Timeout }>;
}

const keyOf = (type: string, id: string): string => `${type}||${id}`;
/** A local turn's answer when it did not run here: the call goes through daprd. */
const ELSEWHERE = Symbol('elsewhere');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * ActorHost on Dapr virtual actors: daprd places each (type, id) on one replica and calls it
 * through the app channel routes below; this class keeps the activations of this replica.
 */
export class DaprActorHost implements ActorHost {
  private readonly factories = new Map<string, ActorFactory>();
  private readonly active = new Map<string, Activation>();
  private readonly turns = new TurnQueue();
  private readonly api: SidecarActorApi;
  private readonly log: Log;
  private readonly now: () => number;
  private readonly reminderRetryMs: number;
  /** /healthz answers 503 (daprd stops placing actors here) but turns still run. */
  private draining = false;
  /** Turns are refused with HostStopping; callers retry and reach the actor's new replica. */
  private stopping = false;
  private readonly probe: SelfProbe | undefined;

  constructor(private readonly opts: DaprActorHostOptions) {
    this.api = new SidecarActorApi(opts.sidecar, opts.reviveError, opts.invokeTimeoutMs);
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.reminderRetryMs = opts.reminderRetryMs ?? 2000;
    const liveness = opts.liveness;
    if (liveness) {
      this.factories.set(PROBE_ACTOR_TYPE, () => ({ invoke: async () => 'pong', onReminder: async () => undefined }));
      let n = 0;
      this.probe = new SelfProbe({
        probe: () => this.api.invoke(PROBE_ACTOR_TYPE, `probe-${n++ % PROBE_IDS}`, 'ping', undefined, liveness.timeoutMs),
        policy: liveness,
        intervalMs: liveness.intervalMs,
        now: this.now,
        log: this.log,
      });
    }
  }

  /** False once the self-probe says this replica's actor calls keep failing (the liveness check restarts it). */
  healthy(): boolean {
    return !this.probe?.wedged();
  }

  /** One self-probe now (tests; the host probes by itself once started). */
  probeOnce(): Promise<void> {
    return this.probe?.tick() ?? Promise.resolve();
  }

  register(type: string, factory: ActorFactory): void {
    if (this.factories.has(type)) throw new Error(`actor type ${type} is already registered`);
    this.factories.set(type, factory);
  }

  async invoke<T = unknown>(type: string, id: string, method: string, arg?: unknown): Promise<T> {
    // Refused, not just logged: the suites run this host, so a nested call fails them instead of wedging a rebalance in production.
    const turn = currentTurn();
    if (turn) {
      const err = new CallInsideTurn({ type, id, method }, turn);
      this.log.error({ err }, 'actor call refused inside a turn');
      throw err;
    }
    // Held here: the turn runs in this process, with no round trip through daprd, while this activation holds the actor.
    if (!this.stopping && this.active.has(keyOf(type, id))) {
      const answer = await this.localTurn(type, id, { method }, (actor) => actor.invoke(method, arg));
      if (answer !== ELSEWHERE) return answer as T;
    }
    const budget = this.opts.routingRetryBudgetMs ?? 20_000;
    const started = this.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.api.invoke(type, id, method, arg)) as T;
      } catch (err) {
        // A replica that is stopping answered before running the turn: daprd moves the actor shortly.
        const retriable = isRetriableRouting(err) || (err instanceof Error && err.name === 'HostStopping');
        if (mayHaveRun(err)) throw new OutcomeUnknown({ type, id, method }, err.message);
        if (!retriable || this.now() - started >= budget) throw err;
        await sleep(Math.min(100 * 2 ** attempt, 1000));
      }
    }
  }

  /** Waits for the sidecar. Call after the app listens: daprd reads /dapr/config once the port opens. */
  async start(): Promise<void> {
    this.stopping = false;
    this.draining = false;
    await this.api.ready();
    this.probe?.start();
  }

  /** Reports unhealthy while still serving turns, long enough for daprd to move this replica's actors away. */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.probe?.pause();
    await sleep(this.opts.drainMs ?? 0);
  }

  async stop(): Promise<void> {
    await this.drain();
    this.stopping = true;
    const deactivations = Promise.all(
      [...this.active.keys()].map((key) => this.turns.run(key, () => this.deactivate(key, this.opts.stopCallTimeoutMs ?? 2000))),
    );
    const within = this.opts.stopWithinMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), within)));
    const outcome = await Promise.race([deactivations.then(() => 'done' as const), late]).finally(() => clearTimeout(timer));
    if (outcome === 'late')
      this.log.warn(
        { stillActive: this.active.size, withinMs: within },
        'stopped with actor turns still running; the recovery scan re-derives their reminders',
      );
  }

  /** GET /dapr/config body (dapr/dapr `pkg/config/app_configuration.go`). */
  appConfig(): Record<string, unknown> {
    const types = [...this.factories.keys()];
    const perType = Object.entries(this.opts.entitiesConfig ?? {}).filter(([t]) => this.factories.has(t));
    return {
      entities: types,
      actorIdleTimeout: this.opts.actorIdleTimeout ?? '15m',
      drainOngoingCallTimeout: this.opts.drainOngoingCallTimeout ?? '2s',
      drainRebalancedActors: true,
      reentrancy: { enabled: false },
      ...(perType.length ? { entitiesConfig: perType.map(([t, c]) => ({ entities: [t], ...c })) } : {}),
    };
  }

  /**
   * The Dapr app channel. Mount it before any body parser and before listen(): daprd asks
   * /dapr/config once, as soon as the port accepts connections.
   */
  router(): Router {
    const r = express.Router();
    const body = express.raw({ type: () => true, limit: this.opts.maxBodyBytes ?? 16 * 1024 * 1024 });
    r.get('/healthz', (_req, res) => {
      const down = this.draining || this.stopping;
      res.status(down ? 503 : 200).json({ status: down ? 'stopping' : 'ok' });
    });
    // Hand-written app channel: the @dapr/dapr actor server acks failed reminders/deactivations without an answer, loses error bodies, cannot serve entitiesConfig or check dapr-api-token.
    const token = requireDaprAppToken(this.opts.appApiToken);
    r.get('/dapr/config', token, (_req, res) => {
      res.json(this.appConfig());
    });
    r.put('/actors/:type/:id/method/remind/*name', token, body, (req, res) => this.onReminderCall(req, res));
    r.put('/actors/:type/:id/method/timer/*name', token, body, (req, res) => this.onReminderCall(req, res));
    r.put('/actors/:type/:id/method/:method', token, body, (req, res) => this.onMethodCall(req, res));
    r.delete('/actors/:type/:id', token, (req, res) => this.onDeactivateCall(req, res));
    return r;
  }

  private async onMethodCall(req: Request, res: Response): Promise<void> {
    const { type, id, method } = req.params as Record<string, string>;
    if (!this.accepting(type, res)) return;
    let arg: unknown;
    try {
      arg = parseBody(req.body);
    } catch (err) {
      res.status(400).json(serializeActorError(err));
      return;
    }
    try {
      const result = await this.turn(type, id, (actor) => actor.invoke(method, arg));
      res
        .status(200)
        .type('application/json')
        .send(JSON.stringify(result ?? null));
    } catch (err) {
      replyError(res, err);
    }
  }

  private async onReminderCall(req: Request, res: Response): Promise<void> {
    const { type, id } = req.params as Record<string, string>;
    const name = joinWildcard(req.params.name);
    this.log.debug({ type, id, reminder: name }, 'reminder delivered by daprd');
    if (!this.accepting(type, res)) return;
    try {
      await this.turn(type, id, (actor, activation) => {
        activation.armed.delete(name); // a one-shot reminder that fired is no longer registered
        return actor.onReminder(name);
      });
      res.status(200).end();
    } catch (err) {
      this.log.warn({ err, type, id, reminder: name }, 'reminder turn failed; re-arming');
      // Re-arm ourselves rather than trust the failure policy alone (daprd's HTTP decoding of failure_policy is untested upstream).
      try {
        await this.api.setReminder(type, id, name, this.reminderRetryMs, { retry: true }, `${this.reminderRetryMs}ms`);
        res.status(200).end();
      } catch (rearmErr) {
        this.log.error({ err: rearmErr, type, id, reminder: name }, 'could not re-arm reminder; daprd will retry');
        replyError(res, err);
      }
    }
  }

  private async onDeactivateCall(req: Request, res: Response): Promise<void> {
    const { type, id } = req.params as Record<string, string>;
    this.log.debug({ type, id }, 'deactivation asked by daprd');
    try {
      await this.turns.run(keyOf(type, id), () => this.deactivate(keyOf(type, id)));
      res.status(200).end();
    } catch (err) {
      this.log.warn({ err, type, id }, 'onDeactivate failed; actor dropped anyway');
      replyError(res, err);
    }
  }

  private accepting(type: string, res: Response): boolean {
    if (this.stopping) {
      res.status(503).set('X-DaprErrorResponseHeader', 'true').json(serializeActorError(new HostStopping()));
      return false;
    }
    if (!this.factories.has(type)) {
      res.status(404).json({ error: { name: 'ActorTypeNotRegistered', message: `actor type ${type} is not hosted here` } });
      return false;
    }
    return true;
  }

  private turn<T>(type: string, id: string, body: (actor: Actor, activation: Activation) => Promise<T>): Promise<T> {
    const key = keyOf(type, id);
    return this.turns.run(key, () =>
      inTurn({ type, id }, async () => {
        const activation = await this.activation(type, id);
        try {
          return await body(activation.actor, activation);
        } catch (err) {
          if (err instanceof ActorDeactivated && this.active.get(key) === activation) {
            this.active.delete(key); // next call re-activates and reloads
            await this.persistLocalReminders(activation);
          }
          throw err;
        }
      }),
    );
  }

  /**
   * A turn daprd did not deliver (a timer of this activation, a call made on this replica): it runs only on the activation
   * still held here that still holds the actor's claim. A superseded one is dropped; ELSEWHERE then
   * tells the caller to go through daprd (never re-activated in process: daprd may have placed it elsewhere).
   */
  private localTurn<T>(
    type: string,
    id: string,
    what: InProcessTurn,
    body: (actor: Actor, activation: Activation) => Promise<T>,
  ): Promise<T | typeof ELSEWHERE> {
    const key = keyOf(type, id);
    return this.turns.run(key, () =>
      inTurn({ type, id }, async () => {
        const activation = this.active.get(key);
        if (!activation || this.stopping || !activation.actor.holdsClaim) return ELSEWHERE;
        if (!(await activation.actor.holdsClaim(what))) {
          await this.dropSuperseded(key, activation);
          return ELSEWHERE;
        }
        try {
          return await body(activation.actor, activation);
        } catch (err) {
          // Superseded after the check: its commit was fenced, so the turn did nothing and daprd's owner takes the call.
          if (!(err instanceof ActorDeactivated)) throw err;
          await this.dropSuperseded(key, activation);
          return ELSEWHERE;
        }
      }),
    );
  }

  /** Another activation committed since this one loaded: it holds the actor and its reminders, so nothing held here is run or registered. */
  private async dropSuperseded(key: string, activation: Activation): Promise<void> {
    if (this.active.get(key) === activation) this.active.delete(key);
    for (const { timer } of activation.local.values()) clearTimeout(timer);
    activation.local.clear();
    this.log.info({ type: activation.type, id: activation.id }, 'activation superseded by another; dropped');
    await activation.actor.onDeactivate?.();
  }

  private async activation(type: string, id: string): Promise<Activation> {
    const key = keyOf(type, id);
    const existing = this.active.get(key);
    if (existing) return existing;
    const factory = this.factories.get(type);
    if (!factory) throw new Error(`actor type ${type} is not registered`);
    const armed = new Map<string, number | null>();
    const local: Activation['local'] = new Map();
    const actor = factory(this.context(type, id, armed, local));
    await actor.onActivate?.();
    const activation: Activation = { type, id, actor, armed, local };
    this.active.set(key, activation);
    this.log.debug({ type, id }, 'activated');
    return activation;
  }

  private context(type: string, id: string, armed: Activation['armed'], local: Activation['local']): ActorContext {
    const api = this.api;
    const state: ActorStateStore = {
      get: async <T>(key: string) => (await api.getState(type, id, key)) as T | undefined,
      transact: (ops) => api.transactState(type, id, ops),
    };
    const setReminder = async (name: string, dueAt: number | null): Promise<void> => {
      if (armed.has(name) && armed.get(name) === dueAt) return;
      if (dueAt === null) await api.deleteReminder(type, id, name);
      else await api.setReminder(type, id, name, dueAt - this.now(), { dueAt }, `${this.reminderRetryMs}ms`);
      armed.set(name, dueAt);
    };
    const setRecoverableReminder = async (name: string, dueAt: number | null): Promise<void> => {
      const held = local.get(name);
      if (held) clearTimeout(held.timer);
      local.delete(name);
      if (dueAt === null) {
        // Only one this activation registered with daprd costs a call; an older one fires once and finds nothing due.
        if (armed.get(name) != null) await setReminder(name, null);
        return;
      }
      // In memory only for an actor that can tell whether it was superseded before its timer runs (localTurn).
      if (dueAt - this.now() > MAX_TIMER_MS || !this.active.get(keyOf(type, id))?.actor.holdsClaim) return setReminder(name, dueAt);
      const timer = setTimeout(() => this.fireLocalReminder(type, id, name, timer), Math.max(0, dueAt - this.now()));
      timer.unref();
      local.set(name, { dueAt, timer });
      this.log.debug({ type, id, reminder: name, dueAt }, 'reminder held in memory');
    };
    return {
      type,
      id,
      state,
      setReminder,
      ...(this.opts.recoverableRemindersInMemory ? { setRecoverableReminder } : {}),
      // In process while this activation holds the actor, queued behind the turn it may be made from; once superseded, moved or stopping, through daprd.
      callSelf: async (method, arg) => {
        if (!this.stopping && this.active.has(keyOf(type, id))) {
          const answer = await this.localTurn(type, id, { method }, (actor) => actor.invoke(method, arg));
          if (answer !== ELSEWHERE) return answer;
        }
        return this.invoke(type, id, method, arg);
      },
    };
  }

  private async deactivate(key: string, callTimeoutMs?: number): Promise<void> {
    const activation = this.active.get(key);
    if (!activation) return; // daprd may deactivate ids this process never held (e.g. after a restart)
    this.active.delete(key);
    await this.persistLocalReminders(activation, callTimeoutMs);
    await activation.actor.onDeactivate?.();
  }

  /** A recoverable reminder's timer ran out: its turn, unless it was re-armed, cleared or its activation ended since. */
  private fireLocalReminder(type: string, id: string, name: string, timer: NodeJS.Timeout): void {
    if (this.active.get(keyOf(type, id))?.local.get(name)?.timer !== timer) {
      this.log.debug({ type, id, reminder: name }, 'reminder timer ran out after its activation ended');
      return; // daprd holds it now
    }
    // ELSEWHERE needs nothing: a deactivation registered this timer with daprd, a superseding activation holds its own.
    this.localTurn(type, id, { reminder: name }, async (actor, activation) => {
      if (activation.local.get(name)?.timer !== timer) return 'rearmed';
      activation.local.delete(name);
      await actor.onReminder(name);
      return 'ran';
    }).then(
      (outcome) => this.log.debug({ type, id, reminder: name, outcome: outcome === ELSEWHERE ? 'elsewhere' : outcome }, 'reminder timer ran out'),
      async (err: unknown) => {
        this.log.warn({ err, type, id, reminder: name }, 'reminder turn failed; re-arming with daprd');
        await this.api
          .setReminder(type, id, name, this.reminderRetryMs, { retry: true }, `${this.reminderRetryMs}ms`)
          .catch((rearmErr: unknown) => this.log.error({ err: rearmErr, type, id, reminder: name }, 'could not re-arm reminder; the recovery scan re-arms it'));
      },
    );
  }

  /** The activation ends: its recoverable reminders still pending become daprd reminders. */
  private async persistLocalReminders(a: Activation, callTimeoutMs?: number): Promise<void> {
    const pending = [...a.local];
    a.local.clear();
    await Promise.all(
      pending.map(async ([name, { dueAt, timer }]) => {
        clearTimeout(timer);
        try {
          await this.api.setReminder(a.type, a.id, name, Math.max(0, dueAt - this.now()), { dueAt }, `${this.reminderRetryMs}ms`, callTimeoutMs);
          a.armed.set(name, dueAt);
          this.log.debug({ type: a.type, id: a.id, reminder: name, dueAt }, 'reminder registered with daprd at deactivation');
        } catch (err) {
          this.log.warn({ err, type: a.type, id: a.id, reminder: name }, 'could not register a reminder at deactivation; the recovery scan re-arms it');
        }
      }),
    );
  }
}

const parseBody = (body: unknown): unknown => {
  if (Buffer.isBuffer(body)) return body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  return body; // already parsed by a body parser mounted in front of the router
};

const joinWildcard = (v: unknown): string => (Array.isArray(v) ? v.join('/') : String(v));

const replyError = (res: Response, err: unknown): void => {
  // The header makes daprd hand status and body back to the caller verbatim (dapr/dapr `pkg/actors/targets/app/transport`).
  res.status(500).set('X-DaprErrorResponseHeader', 'true').json(serializeActorError(err));
};

/** Composition-root helper: the distributed profile's actor host and its app-channel router. */
export const createDaprActorHost = (opts: DaprActorHostOptions): { host: DaprActorHost; router: Router } => {
  const host = new DaprActorHost(opts);
  return { host, router: host.router() };
};
