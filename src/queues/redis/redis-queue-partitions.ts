import type Redis from 'ioredis';
import type { LeaseArg, LeaseResult, QueueActorClient, QueueEntry } from '../../actors/protocol/queue-protocol';
import type { QueuePartitionStore } from '../ports';
import { LEASE, PUSH, RELEASE, REMOVE } from './queue-scripts';

type QueueCommands = Redis & {
  batonQueuePush(e: string, r: string, d: string, l: string, s: string, now: number, ...entries: Array<string | number>): Promise<number>;
  batonQueueLease(e: string, r: string, d: string, l: string, s: string, now: number, count: number, leaseMs: number): Promise<string>;
  batonQueueRemove(e: string, r: string, d: string, l: string, s: string, ...taskIds: string[]): Promise<number>;
  batonQueueRelease(e: string, r: string, d: string, l: string, s: string, now: number, taskId: string, visibleAt: number): Promise<number>;
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
    connection.defineCommand('batonQueuePush', { numberOfKeys: 5, lua: PUSH });
    connection.defineCommand('batonQueueLease', { numberOfKeys: 5, lua: LEASE });
    connection.defineCommand('batonQueueRemove', { numberOfKeys: 5, lua: REMOVE });
    connection.defineCommand('batonQueueRelease', { numberOfKeys: 5, lua: RELEASE });
    this.redis = connection as QueueCommands;
  }

  private keysOf(partitionId: string): readonly [string, string, string, string, string] {
    const tag = `${this.keyPrefix}queue:{${partitionId}}`;
    return [`${tag}:e`, `${tag}:r`, `${tag}:d`, `${tag}:l`, `${tag}:s`];
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
    const remove = (taskIds: string[]): Promise<number> => (taskIds.length === 0 ? Promise.resolve(0) : redis.batonQueueRemove(...keys, ...taskIds));
    return {
      push: async (e) => (await push([e])) > 0,
      pushMany: async (list) => {
        if (list.length > 0) await push(list);
        return null;
      },
      lease: async (a: LeaseArg): Promise<LeaseResult> => {
        const raw = JSON.parse(await redis.batonQueueLease(...keys, a.now, a.count, a.leaseMs)) as { entries: unknown; next?: number };
        const rows = Array.isArray(raw.entries) ? (raw.entries as Array<[string, string, number, number]>) : [];
        return {
          entries: rows.map(([taskId, workflowId, priority, visibleAt]) => ({ taskId, workflowId, priority, visibleAt })),
          ...(raw.next !== undefined ? { nextVisibleAt: raw.next } : {}),
        };
      },
      ack: async ({ taskId }) => (await remove([taskId])) > 0,
      remove: async ({ taskId }) => (await remove([taskId])) > 0,
      removeMany: async ({ taskIds }) => {
        await remove(taskIds);
        return null;
      },
      release: async ({ taskId, visibleAt }) => (await redis.batonQueueRelease(...keys, now(), taskId, visibleAt)) === 1,
      size: async () => {
        const [[, all], [, leased]] = (await redis.multi().hlen(keys[0]).scard(keys[3]).exec()) as [[null, number], [null, number]];
        return all - leased;
      },
      stats: async () => {
        const [[, size], [, leased]] = (await redis.multi().hlen(keys[0]).scard(keys[3]).exec()) as [[null, number], [null, number]];
        return { size, leased };
      },
    };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
