import { createHash } from 'node:crypto';
import type { QueueKey } from '../engine/effects';
import { queueName } from '../engine/effects';

/** How task queues map to QueueActor ids: `<queue name>#<partition>`. */
export class QueuePartitions {
  /** Queue names seen (pushed to) by this process. */
  readonly known = new Set<string>();

  constructor(
    readonly partitions: number,
    /** Told of every queue name the first time this process pushes to it. */
    private readonly onNewQueue: (name: string) => void = () => undefined,
  ) {}

  actorIdFor(q: QueueKey, taskId: string): string {
    const name = queueName(q);
    if (!this.known.has(name)) {
      this.known.add(name);
      this.onNewQueue(name);
    }
    return `${name}#${this.partitionOf(taskId)}`;
  }

  partitionOf(taskId: string): number {
    if (this.partitions <= 1) return 0;
    return createHash('md5').update(taskId).digest().readUInt32BE(0) % this.partitions;
  }

  /** Every partition actor id of a queue, starting at a rotating offset so pollers spread out. */
  actorIds(name: string, offset = 0): string[] {
    const ids: string[] = [];
    for (let i = 0; i < this.partitions; i++) ids.push(`${name}#${(i + offset) % this.partitions}`);
    return ids;
  }
}
