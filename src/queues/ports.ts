import type { QueueActorClient } from '../actors/protocol/queue-protocol';

/**
 * The task-queue partition named `partitionId` (a queue name and its partition number): a QueueActor on
 * the actor host, or a Redis-backed partition answering the same calls (queues/redis).
 */
export type QueuePartitionAccess = (partitionId: string) => QueueActorClient;

/** Queue partitions kept outside the actor host (Redis), as a profile's adapter offers them. */
export interface QueuePartitionStore {
  partition(partitionId: string): QueueActorClient;
  /** Entries each partition holds (pending and leased), in the order asked: one round trip. */
  depths(partitionIds: string[]): Promise<number[]>;
}
