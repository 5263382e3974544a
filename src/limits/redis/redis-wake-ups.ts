import type Redis from 'ioredis';
import type { WakeUps } from '../ports';
import { subscribeWhenReady } from './subscription';

interface Waiter {
  resolve(notified: boolean): void;
}

/**
 * Long-poll wake-ups shared by all replicas: one Redis pub/sub channel carrying queue names.
 * Every replica subscribes once at start, so a wait never races a fresh SUBSCRIBE; a notify
 * wakes every local waiter of that queue on every replica (they re-check their queue).
 */
export class RedisWakeUps implements WakeUps {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly subscribed: Promise<unknown>;
  private closed = false;

  /** Takes ownership of `connection` (and of the subscriber connection it duplicates). */
  constructor(
    private readonly connection: Redis,
    keyPrefix: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.channel = `${keyPrefix}wakeups`;
    this.subscriber = connection.duplicate();
    this.subscriber.on('message', (channel: string, queue: string) => {
      if (channel === this.channel) this.wakeLocal(queue);
    });
    this.subscribed = subscribeWhenReady(this.subscriber, this.channel).catch(onError);
  }

  /** Resolves once the channel subscription is in place (tests and readiness checks). */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  notify(queue: string): void {
    if (this.closed) return;
    this.wakeLocal(queue); // this replica's waiters need no round trip
    this.connection.publish(this.channel, queue).catch(this.onError);
  }

  wait(queue: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.closed || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const set = this.waiters.get(queue) ?? new Set<Waiter>();
      this.waiters.set(queue, set);
      const finish = (notified: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set.delete(waiter);
        if (set.size === 0 && this.waiters.get(queue) === set) this.waiters.delete(queue);
        resolve(notified);
      };
      const waiter: Waiter = { resolve: finish };
      const onAbort = (): void => finish(false);
      const timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
      signal?.addEventListener('abort', onAbort, { once: true });
      set.add(waiter);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const set of [...this.waiters.values()]) for (const w of [...set]) w.resolve(false);
    await Promise.allSettled([this.subscriber.quit(), this.connection.quit()]);
  }

  private wakeLocal(queue: string): void {
    const set = this.waiters.get(queue);
    if (set) for (const w of [...set]) w.resolve(true);
  }
}
