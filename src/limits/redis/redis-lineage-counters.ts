import type Redis from 'ioredis';
import { LINEAGE_IDLE_MS, type DescendantLimits, type DescendantStart, type LineageCounters } from '../ports';
import { TRY_DESCENDANT_START } from './limit-scripts';

type LineageCommands = Redis & {
  batonTryDescendantStart(
    idsKey: string,
    startsKey: string,
    workflowId: string,
    maxDescendants: number,
    maxPerSecond: number,
    now: number,
    idleMs: number,
  ): Promise<number>;
};

const OUTCOMES: readonly DescendantStart[] = ['admitted', 'descendants', 'rate'];

/** Descendant starts per root execution, shared by every replica through Redis; each key expires once its tree idles. */
export class RedisLineageCounters implements LineageCounters {
  private readonly redis: LineageCommands;

  /** Takes ownership of `connection`. */
  constructor(
    connection: Redis,
    private readonly keyPrefix: string,
    private readonly idleMs = LINEAGE_IDLE_MS,
  ) {
    connection.defineCommand('batonTryDescendantStart', { numberOfKeys: 2, lua: TRY_DESCENDANT_START });
    this.redis = connection as LineageCommands;
  }

  async tryStart(rootWorkflowId: string, workflowId: string, limits: DescendantLimits, now: number): Promise<DescendantStart> {
    // The hash tag keeps a root's two keys in one slot of a Redis cluster.
    const tree = `${this.keyPrefix}lineage:{${rootWorkflowId}}`;
    const outcome = await this.redis.batonTryDescendantStart(
      `${tree}:ids`,
      `${tree}:starts`,
      workflowId,
      limits.maxDescendants,
      limits.maxPerSecond,
      now,
      this.idleMs,
    );
    return OUTCOMES[outcome] ?? 'admitted';
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
