import type { QueueActorClient } from '../actors/protocol/queue-protocol';

/**
 * The task-queue partition named `partitionId` (a queue name and its partition number): a QueueActor on
 * the actor host, or a Redis-backed partition answering the same calls (queues/redis).
 */
export type QueuePartitionAccess = (partitionId: string) => QueueActorClient;

/** Queue partitions kept outside the actor host (Redis), as a profile's adapter offers them. */
export interface QueuePartitionStore {
  partition(partitionId: string): QueueActorClient;
  /** Tells `listener` the entries a partition holds after each push, lease and removal (the queue-depth metric). */
  watchDepth(listener: (partitionId: string, entries: number) => void): void;
}
