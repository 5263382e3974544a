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

export const LeaseArgSchema = z.object({ count: z.number().int().min(0), now: z.number(), leaseMs: z.number() });
export type LeaseArg = z.infer<typeof LeaseArgSchema>;

export const LeaseResultSchema = z.object({
  entries: z.array(QueueEntrySchema),
  /** When the next delayed entry becomes visible, if any (so a long poll can sleep until then). */
  nextVisibleAt: z.number().optional(),
});
export type LeaseResult = z.infer<typeof LeaseResultSchema>;

const byTask = z.object({ taskId: z.string() });

export const QueueCalls = defineActor('QueueActor', {
  /** Idempotent by task id; answers whether the queue changed. */
  push: { arg: QueueEntrySchema, result: z.boolean() },
  pushMany: { arg: z.array(QueueEntrySchema), result: z.null() },
  lease: { arg: LeaseArgSchema, result: LeaseResultSchema },
  /** Answers whether the entry was there. */
  ack: { arg: byTask, result: z.boolean() },
  remove: { arg: byTask, result: z.boolean() },
  removeMany: { arg: z.object({ taskIds: z.array(z.string()) }), result: z.null() },
  /** Puts a leased entry back, visible at `visibleAt`; answers whether it was there. */
  release: { arg: z.object({ taskId: z.string(), visibleAt: z.number() }), result: z.boolean() },
  /** Entries not leased. */
  size: { arg: z.object({ now: z.number() }).optional(), result: z.number() },
  stats: { arg: z.undefined().or(z.null()).optional(), result: z.object({ size: z.number(), leased: z.number() }) },
});
export type QueueActorClient = Client<typeof QueueCalls.calls>;

/** The typed client of queue partition `actorId`. */
export const queueActor = (host: ActorHost, actorId: string): QueueActorClient => QueueCalls.client(host, actorId);
