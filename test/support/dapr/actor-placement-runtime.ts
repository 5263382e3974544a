import { appUrl, type AppInstance } from './app-instance';
import { FifoLocks } from './fifo-locks';
import type { HttpForwarder, HttpReply } from './http-forwarder';
import { chooseHost } from './placement';

export interface ActorActivation {
  type: string;
  id: string;
  app: AppInstance;
  lastUsed: number;
}

/** Raised when no ready app hosts the actor type (daprd: ERR_ACTOR_NO_ADDRESS). */
export class NoActorHost extends Error {
  constructor(type: string, id: string) {
    super(`did not find address for actor ${type}/${id}`);
    this.name = 'NoActorHost';
  }
}

export interface ActorPlacementOptions {
  /** How long a call waits for some app to host its type (placement dissemination, restarts). */
  placementWaitMs: number;
  /** Headers the double adds on every call into an app (dapr-api-token). */
  appHeaders: () => Record<string, string>;
  log: (line: string) => void;
}

const keyOf = (type: string, id: string): string => `${type}||${id}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const actorPath = (type: string, id: string): string => `/actors/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

/**
 * Placement, turn-based locking, activation tracking, rebalancing and idle deactivation of the
 * double: everything daprd + placement do between a caller and the app that hosts an actor.
 */
export class ActorPlacementRuntime {
  readonly locks = new FifoLocks();
  private readonly active = new Map<string, ActorActivation>();

  constructor(
    private readonly apps: () => AppInstance[],
    private readonly http: HttpForwarder,
    private readonly opts: ActorPlacementOptions,
  ) {}

  hostsOf(type: string): AppInstance[] {
    return this.apps().filter((a) => a.status === 'ready' && a.entities.includes(type));
  }

  ownerOf(type: string, id: string): AppInstance | undefined {
    return chooseHost(type, id, this.hostsOf(type));
  }

  activations(): ActorActivation[] {
    return [...this.active.values()];
  }

  /** One turn on the actor: PUT `/actors/{type}/{id}{suffix}` on its owner, under the actor's lock. */
  call(type: string, id: string, suffix: string, headers: Record<string, string>, body?: Buffer): Promise<HttpReply> {
    return this.locks.run(keyOf(type, id), async () => {
      const owner = await this.waitForOwner(type, id);
      await this.moveIfNeeded(type, id, owner);
      const reply = await this.http.send(appUrl(owner, `${actorPath(type, id)}${suffix}`), 'PUT', { ...headers, ...this.opts.appHeaders() }, body);
      this.active.set(keyOf(type, id), { type, id, app: owner, lastUsed: Date.now() });
      return reply;
    });
  }

  /** After a membership change: deactivate (drained, under the lock) every actor whose owner moved. */
  rebalance(): void {
    for (const [key, act] of this.active) {
      if (this.ownerOf(act.type, act.id) === act.app) continue;
      void this.locks.run(key, async () => {
        const current = this.active.get(key);
        if (!current || this.ownerOf(current.type, current.id) === current.app) return;
        await this.deactivateOn(current);
      });
    }
  }

  /** The app died: its activations are gone without a DELETE, as when a pod is killed. */
  forgetApp(app: AppInstance): void {
    for (const [key, act] of this.active) if (act.app === app) this.active.delete(key);
  }

  /** Sends DELETE to actors idle longer than their type's actorIdleTimeout. */
  sweepIdle(now: number): void {
    for (const [key, act] of this.active) {
      const idleMs = act.app.idleTimeoutMs.get(act.type) ?? 3_600_000;
      if (this.locks.busy(key) || now - act.lastUsed < idleMs) continue;
      void this.locks.run(key, async () => {
        const current = this.active.get(key);
        if (!current || Date.now() - current.lastUsed < idleMs) return;
        await this.deactivateOn(current);
      });
    }
  }

  private async waitForOwner(type: string, id: string): Promise<AppInstance> {
    const deadline = Date.now() + this.opts.placementWaitMs;
    for (;;) {
      const owner = this.ownerOf(type, id);
      if (owner) return owner;
      if (Date.now() >= deadline) throw new NoActorHost(type, id);
      await sleep(50);
    }
  }

  private async moveIfNeeded(type: string, id: string, owner: AppInstance): Promise<void> {
    const act = this.active.get(keyOf(type, id));
    if (act && act.app !== owner) await this.deactivateOn(act);
  }

  private async deactivateOn(act: ActorActivation): Promise<void> {
    this.active.delete(keyOf(act.type, act.id));
    if (act.app.status !== 'ready') return;
    try {
      const reply = await this.http.send(appUrl(act.app, actorPath(act.type, act.id)), 'DELETE', this.opts.appHeaders());
      if (reply.status !== 200) this.opts.log(`deactivate ${act.type}/${act.id} answered ${reply.status}`);
    } catch (err) {
      this.opts.log(`deactivate ${act.type}/${act.id} failed: ${String(err)}`);
    }
  }
}
