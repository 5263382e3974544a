import type { Lineage } from '../model/lineage';

/**
 * Pub/sub for events leaving and entering Baton: EVENT task sinks, workflow/task status changes,
 * and task completions published by other services. Local adapter: in-process; Dapr adapter:
 * a Dapr pub/sub component.
 */
export interface PublishedEvent {
  /** Unique id; subscribers dedupe on it. */
  id: string;
  /** The event name as event handlers match it, e.g. `conductor:wf:ref` or `dapr:pubsub:topic`. */
  event: string;
  payload: Record<string, unknown>;
  /** Set on what an execution publishes (EVENT task, status change): a workflow an event handler starts on it descends from that execution. */
  lineage?: Lineage;
}

export interface EventBus {
  publish(e: PublishedEvent): Promise<void>;
  /** Registers the single consumer of incoming events (the event-handler processor). */
  subscribe(handler: (e: PublishedEvent) => Promise<void>): void;
  close(): Promise<void>;
}
