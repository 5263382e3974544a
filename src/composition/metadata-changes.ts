import type Redis from 'ioredis';
import type { AccessKeyRecord, ApplicationRecord } from '../model/applications';
import type { TaskDef, WorkflowDef } from '../model/definitions';
import type { EventExecution, EventHandler } from '../model/events';
import type { MetadataStore } from '../store/ports';
import { subscribeWhenReady } from '../limits/redis/subscription';

type Log = { warn(o: object, m: string): void };

/**
 * Definition changes between replicas: a write bumps a generation number in Redis and publishes it;
 * every replica reloads its definition cache when it hears a newer one, and actor turns wait for
 * that reload (`settled`), so a turn never schedules a task with a definition older than a write
 * acknowledged before the call that led to the turn. A start naming a task definition the cache lacks
 * first reads the generation (`catchUp`), as Conductor reads its store on a cache miss; the cache TTL
 * covers a missed message otherwise.
 */
export class MetadataChanges {
  private seen = 0;
  private loaded = 0;
  private reloading?: Promise<void>;
  private refresh: () => Promise<void> = async () => undefined;
  private readonly channel: string;
  private readonly generationKey: string;

  /** Takes ownership of both connections; `subscriber` is used for nothing else. */
  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    keyPrefix: string,
    private readonly log: Log,
  ) {
    this.channel = `${keyPrefix}metadata-changed`;
    this.generationKey = `${keyPrefix}metadata-generation`;
    this.subscriber.on('message', (channel: string, gen: string) => {
      if (channel === this.channel) this.heard(Number(gen));
    });
  }

  /** Subscribes; from then on every change heard of runs `refresh` (one at a time). */
  async start(refresh: () => Promise<void>): Promise<void> {
    this.refresh = refresh;
    await subscribeWhenReady(this.subscriber, this.channel);
    const gen = Number((await this.redis.get(this.generationKey)) ?? 0);
    this.seen = Math.max(this.seen, gen);
    this.loaded = Math.max(this.loaded, gen); // the caller loaded its cache just before start
  }

  /** Announces a change made through this replica; resolves once it is published. */
  async changed(): Promise<void> {
    const gen = await this.redis.incr(this.generationKey);
    await this.redis.publish(this.channel, String(gen));
  }

  /** A promise to await before using the cache when a heard change is not loaded yet; undefined otherwise. */
  settled(): Promise<void> | undefined {
    if (this.loaded >= this.seen) return undefined;
    this.reload();
    return this.reloading;
  }

  /**
   * Reads the generation from Redis and loads a change not heard of yet: a message still on its way,
   * or lost with a subscription. One GET; for a turn about to use a definition its cache lacks.
   */
  async catchUp(): Promise<void> {
    try {
      const gen = Number((await this.redis.get(this.generationKey)) ?? 0);
      // Forward only: a reply below a message heard meanwhile is older than it, not a counter Redis lost (messages tell that).
      if (gen > this.seen) this.heard(gen);
    } catch (err) {
      // Redis unreachable: the turn goes on with the cache as it is, as it would without this check.
      this.log.warn({ err }, 'definition generation unreadable; the cache is used as it is');
    }
    await this.settled();
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.redis.quit()]);
  }

  /** The store with every definition write announced after it succeeded. */
  announcing(store: MetadataStore): MetadataStore {
    return new AnnouncingMetadataStore(store, () => this.changed());
  }

  private heard(gen: number): void {
    if (!Number.isFinite(gen) || gen === this.seen) return;
    // Below the last one heard: Redis lost the counter (restarted without its data) and counts from 1 again.
    if (gen < this.seen) this.loaded = Math.min(this.loaded, gen - 1);
    this.seen = gen;
    this.reload();
  }

  private reload(): void {
    if (this.reloading) return;
    this.reloading = (async () => {
      while (this.loaded < this.seen) {
        const target = this.seen;
        await this.refresh();
        this.loaded = target;
      }
    })()
      .catch((err) => this.log.warn({ err }, 'definition cache reload failed; retried on the next turn'))
      .finally(() => {
        this.reloading = undefined;
      });
  }
}

/** MetadataStore decorator: definition and event-handler writes are announced once stored. */
class AnnouncingMetadataStore implements MetadataStore {
  constructor(
    private readonly store: MetadataStore,
    private readonly announce: () => Promise<void>,
  ) {}

  private async write<T>(result: Promise<T>): Promise<T> {
    const r = await result;
    await this.announce();
    return r;
  }

  putTaskDef(def: TaskDef): Promise<void> {
    return this.write(this.store.putTaskDef(def));
  }
  getTaskDef(name: string): Promise<TaskDef | undefined> {
    return this.store.getTaskDef(name);
  }
  listTaskDefs(): Promise<TaskDef[]> {
    return this.store.listTaskDefs();
  }
  deleteTaskDef(name: string): Promise<boolean> {
    return this.write(this.store.deleteTaskDef(name));
  }
  putWorkflowDef(def: WorkflowDef): Promise<void> {
    return this.write(this.store.putWorkflowDef(def));
  }
  getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined> {
    return this.store.getWorkflowDef(name, version);
  }
  listWorkflowDefs(): Promise<WorkflowDef[]> {
    return this.store.listWorkflowDefs();
  }
  deleteWorkflowDef(name: string, version: number): Promise<boolean> {
    return this.write(this.store.deleteWorkflowDef(name, version));
  }
  putEventHandler(h: EventHandler): Promise<void> {
    return this.write(this.store.putEventHandler(h));
  }
  getEventHandler(name: string): Promise<EventHandler | undefined> {
    return this.store.getEventHandler(name);
  }
  listEventHandlers(): Promise<EventHandler[]> {
    return this.store.listEventHandlers();
  }
  deleteEventHandler(name: string): Promise<boolean> {
    return this.write(this.store.deleteEventHandler(name));
  }
  addEventExecution(e: EventExecution): Promise<void> {
    return this.store.addEventExecution(e);
  }
  listEventExecutions(handlerName?: string): Promise<EventExecution[]> {
    return this.store.listEventExecutions(handlerName);
  }
  // Applications and keys are not definitions: no announcement (src/auth caches them for BATON_AUTH_CACHE_MS).
  putApplication(app: ApplicationRecord): Promise<void> {
    return this.store.putApplication(app);
  }
  getApplication(id: string): Promise<ApplicationRecord | undefined> {
    return this.store.getApplication(id);
  }
  listApplications(): Promise<ApplicationRecord[]> {
    return this.store.listApplications();
  }
  countApplications(atMost: number): Promise<number> {
    return this.store.countApplications(atMost);
  }
  deleteApplication(id: string): Promise<boolean> {
    return this.store.deleteApplication(id);
  }
  putAccessKey(key: AccessKeyRecord): Promise<void> {
    return this.store.putAccessKey(key);
  }
  getAccessKey(id: string): Promise<AccessKeyRecord | undefined> {
    return this.store.getAccessKey(id);
  }
  listAccessKeys(applicationId: string): Promise<AccessKeyRecord[]> {
    return this.store.listAccessKeys(applicationId);
  }
  deleteAccessKey(id: string): Promise<boolean> {
    return this.store.deleteAccessKey(id);
  }
  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return this.store.putSettingIfAbsent(name, value);
  }
  close(): Promise<void> {
    return this.store.close();
  }
}
