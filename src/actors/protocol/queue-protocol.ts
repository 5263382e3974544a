import { z } from 'zod';
import type { ActorHost } from '../../runtime/ports';
import { defineActor, type Client } from './protocol';

// The calls of a QueueActor (one task-queue partition).

export const QueueEntrySchema = z.object({
  taskId: z.string(),
  workflowId: z.string(),
  priority: z.number(),
  /** Epoch ms from which the entry may be leased. */
  visibleAt: z.number(),
});
export type QueueEntry = z.infer<typeof QueueEntrySchema>;

export const TakeArgSchema = z.object({ count: z.number().int().min(0), now: z.number() });
export type TakeArg = z.infer<typeof TakeArgSchema>;

export const TakeResultSchema = z.object({
  entries: z.array(QueueEntrySchema),
  /** When the next delayed entry becomes visible, if any (so a long poll can sleep until then). */
  nextVisibleAt: z.number().optional(),
});
export type TakeResult = z.infer<typeof TakeResultSchema>;

export const QueueCalls = defineActor('QueueActor', {
  /** Idempotent by task id; answers whether the queue changed. */
  push: { arg: QueueEntrySchema, result: z.boolean() },
  pushMany: { arg: z.array(QueueEntrySchema), result: z.null() },
  /**
   * Takes up to `count` visible entries out of the partition, as Conductor acknowledges a message when it
   * is polled: an entry not claimed is pushed back by the poller, and one lost with a dead poller is
   * pushed again by its execution's recovery (its task is still SCHEDULED).
   */
  take: { arg: TakeArgSchema, result: TakeResultSchema },
  /** Answers whether the entry was there. */
  remove: { arg: z.object({ taskId: z.string() }), result: z.boolean() },
  /** Entries held. */
  size: { arg: z.object({ now: z.number() }).optional(), result: z.number() },
});
export type QueueActorClient = Client<typeof QueueCalls.calls>;

/** The typed client of queue partition `actorId`. */
export const queueActor = (host: ActorHost, actorId: string): QueueActorClient => QueueCalls.client(host, actorId);
