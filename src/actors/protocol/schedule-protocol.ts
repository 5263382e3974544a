import { z } from 'zod';
import type { ActorHost } from '../../runtime/ports';
import { defineActor, type Client } from './protocol';

// The calls of a ScheduleActor (one per schedule, its id the schedule's name).

export const ScheduleCalls = defineActor('ScheduleActor', {
  /**
   * Re-reads the schedule and arms its reminder for the next slot (clears it when the schedule is
   * gone, paused or past its end). With `skipUntil`, slots up to that instant are marked handled
   * without firing (a resume does not fire what was missed while paused). Idempotent.
   */
  sync: { arg: z.object({ skipUntil: z.number().int().optional() }).optional(), result: z.object({ nextRunTime: z.number().optional() }) },
  /**
   * The workflows of the slots up to `to` were started (after the firing turn): moves the slot mark
   * from `from` to `to` by compare-and-set, then re-arms the reminder at the next slot.
   */
  advance: { arg: z.object({ from: z.number().int().nullable(), to: z.number().int() }), result: z.object({ nextRunTime: z.number().optional() }) },
});
export type ScheduleActorClient = Client<typeof ScheduleCalls.calls>;

/** The typed client of the actor of schedule `name`. */
export const scheduleActor = (host: ActorHost, name: string): ScheduleActorClient => ScheduleCalls.client(host, name);
