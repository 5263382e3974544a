import type Redis from 'ioredis';
import type { QueueActorClient, QueueEntry, TakeArg, TakeResult } from '../../actors/protocol/queue-protocol';
import type { QueuePartitionStore } from '../ports';
import { PUSH, REMOVE, TAKE } from './queue-scripts';

type QueueCommands = Redis & {
  batonQueuePush(e: string, r: string, d: string, l: string, now: number, ...entries: Array<string | number>): Promise<number>;
  batonQueueTake(e: string, r: string, d: string, l: string, now: number, count: number): Promise<string>;
  batonQueueRemove(e: string, r: string, d: string, l: string, ...taskIds: string[]): Promise<number>;
};

/**
 * Task-queue partitions kept in Redis and changed by Lua commands (queue-scripts.ts): the same calls as a
 * QueueActor, without an actor call through the sidecar and a state save behind each. The entries are a
 * cache of the store's SCHEDULED tasks: the recovery scan re-pushes whatever a Redis failure lost.
 */
export class RedisQueuePartitions implements QueuePartitionStore {
  private readonly redis: QueueCommands;

  /** Takes ownership of `connection`. */
  constructor(
    connection: Redis,
    private readonly keyPrefix: string,
    private readonly now: () => number = Date.now,
  ) {
    connection.defineCommand('batonQueuePush', { numberOfKeys: 4, lua: PUSH });
    connection.defineCommand('batonQueueTake', { numberOfKeys: 4, lua: TAKE });
    connection.defineCommand('batonQueueRemove', { numberOfKeys: 4, lua: REMOVE });
    this.redis = connection as QueueCommands;
  }

  private keysOf(partitionId: string): readonly [string, string, string, string] {
    const tag = `${this.keyPrefix}queue:{${partitionId}}`;
    return [`${tag}:e`, `${tag}:r`, `${tag}:d`, `${tag}:l`];
  }

  async depths(partitionIds: string[]): Promise<number[]> {
    if (partitionIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of partitionIds) pipeline.hlen(this.keysOf(id)[0]);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([err, n]) => (err ? 0 : Number(n)));
  }

  /** The partition `partitionId` (a queue name and its partition number, as QueuePartitions names them). */
  partition(partitionId: string): QueueActorClient {
    const keys = this.keysOf(partitionId);
    const redis = this.redis;
    const now = this.now;
    const push = (entries: QueueEntry[]): Promise<number> =>
      redis.batonQueuePush(...keys, now(), ...entries.flatMap((e) => [e.taskId, e.workflowId, e.priority, e.visibleAt]));
    return {
      push: async (e) => (await push([e])) > 0,
      pushMany: async (list) => {
        if (list.length > 0) await push(list);
        return null;
      },
      take: async (a: TakeArg): Promise<TakeResult> => {
        const raw = JSON.parse(await redis.batonQueueTake(...keys, a.now, a.count)) as { entries: unknown; next?: number };
        const rows = Array.isArray(raw.entries) ? (raw.entries as Array<[string, string, number, number]>) : [];
        return {
          entries: rows.map(([taskId, workflowId, priority, visibleAt]) => ({ taskId, workflowId, priority, visibleAt })),
          ...(raw.next !== undefined ? { nextVisibleAt: raw.next } : {}),
        };
      },
      remove: async ({ taskId }) => (await redis.batonQueueRemove(...keys, taskId)) > 0,
      // Ids an earlier version leased are not held: their entries come back when the lease ends.
      size: async () => {
        const [[, all], [, leased]] = (await redis.multi().hlen(keys[0]).scard(keys[3]).exec()) as [[null, number], [null, number]];
        return all - leased;
      },
    };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
