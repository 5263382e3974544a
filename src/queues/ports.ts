import type { QueueActorClient } from '../actors/protocol/queue-protocol';

/**
 * The task-queue partition named `partitionId` (a queue name and its partition number): a QueueActor on
 * the actor host, or a Redis-backed partition answering the same calls (queues/redis).
 */
export type QueuePartitionAccess = (partitionId: string) => QueueActorClient;
