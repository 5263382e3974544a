import type { EventBus, PublishedEvent } from '../ports';

/** Events within one process: published events go straight to the registered consumer, after the caller's turn. */
export class LocalEventBus implements EventBus {
  private handler?: (e: PublishedEvent) => Promise<void>;
  private readonly seen = new Set<string>();

  async publish(e: PublishedEvent): Promise<void> {
    if (this.seen.has(e.id)) return;
    this.seen.add(e.id);
    if (this.seen.size > 100_000) this.seen.clear();
    const h = this.handler;
    if (h) setImmediate(() => void h(e).catch(() => undefined));
  }

  subscribe(handler: (e: PublishedEvent) => Promise<void>): void {
    this.handler = handler;
  }

  async close(): Promise<void> {}
}
