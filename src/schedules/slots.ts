// Which slots of a schedule are due, given "now" and the last slot handled. Pure: the caller passes
// the clock and the cron (as "the first slot strictly after t"), so every rule is tested with fixed times.

/** The first slot strictly after `t` (epoch ms), or undefined when the cron has none. */
export type NextSlot = (t: number) => number | undefined;

export interface SlotWindow {
  next: NextSlot;
  /** Slots before it are not fired (scheduleStartTime). */
  startTime?: number;
  /** Slots after it are not fired (scheduleEndTime). */
  endTime?: number;
}

export interface PlanInput extends SlotWindow {
  now: number;
  /** The last slot handled (fired or skipped); the first candidate is strictly after it. */
  lastSlot: number;
  /** Fire every missed slot (bounded by maxCatchUp, the newest ones); otherwise only an on-time one. */
  catchUp: boolean;
  /** At most this many slots fire in one plan; older missed ones are skipped. */
  maxCatchUp: number;
  /** A slot at most this late is on time (a reminder fires a little after its due time). */
  graceMs: number;
}

export interface Plan {
  /** Slots to fire now, oldest first. */
  fire: number[];
  /** The last slot handled once this plan is carried out (== input lastSlot when nothing was due). */
  lastSlot: number;
  /** When the next slot is due, or undefined when the window has no more. */
  nextDue?: number;
}

/** The first slot strictly after `after` inside the window, or undefined. */
export function firstSlotAfter(w: SlotWindow, after: number): number | undefined {
  const from = w.startTime !== undefined ? Math.max(after, w.startTime - 1) : after;
  const s = w.next(from);
  if (s === undefined || (w.endTime !== undefined && s > w.endTime)) return undefined;
  return s;
}

/** Steps of one scan over due slots; a longer backlog is scanned from a later point instead. */
const SCAN_LIMIT = 10_000;

/** The newest `keep` due slots in (from, now], or undefined when there are more than SCAN_LIMIT of them. */
function dueAfter(p: PlanInput, from: number, keep: number): { due: number[]; next?: number } | undefined {
  const due: number[] = [];
  let s = firstSlotAfter(p, from);
  for (let steps = 0; s !== undefined && s <= p.now; steps++) {
    if (steps >= SCAN_LIMIT) return undefined;
    due.push(s);
    if (due.length > keep) due.shift();
    s = firstSlotAfter(p, s);
  }
  return { due, next: s };
}

/** Slots due at `now` after `lastSlot`, which of them fire, and when the next one is due. */
export function planSlots(p: PlanInput): Plan {
  const keep = Math.max(1, p.maxCatchUp);
  // Without catch-up only a slot within the grace period can fire: older ones need no scan.
  let from = p.catchUp ? p.lastSlot : Math.max(p.lastSlot, p.now - p.graceMs - 1);
  let scan = dueAfter(p, from, keep);
  // A per-second cron after days of downtime: halve the distance to now until the scan is short (only the newest slots fire anyway).
  while (!scan) {
    from += Math.ceil((p.now - from) / 2);
    scan = dueAfter(p, from, keep);
  }
  const { due, next } = scan;
  if (due.length === 0) return { fire: [], lastSlot: p.lastSlot, nextDue: next };
  const newest = due[due.length - 1]!;
  return { fire: p.catchUp ? due : [newest], lastSlot: newest, nextDue: next };
}

/** The next `limit` slots strictly after `after` inside the window (the nextFewSchedules answer). */
export function nextSlots(w: SlotWindow, after: number, limit: number): number[] {
  const out: number[] = [];
  let s = firstSlotAfter(w, after);
  while (s !== undefined && out.length < limit) {
    out.push(s);
    s = firstSlotAfter(w, s);
  }
  return out;
}
