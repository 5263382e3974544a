import { bucketOf, type IndexLayout } from './rows';

// Pure maths of the open-execution indexes (open-index.ts does the reading, index-plan.ts the writing).
//
// An entry is written to the generation (a window of `genMs`) of the time it is written, and stays
// there as long as the execution stays in the index. Once a generation is sealed (it ended
// `sealMarginMs` ago, so no writer can still add to it), the next reader copies its entries that are
// still valid to the family's carried index and drops the generation's partitions whole. Carried
// entries are generations too (of `carriedGenMs`), sealed and carried forward the same way.
// So a read meets the tombstones of a few recent generations only, never those of history.

/** The index names of one family: writers write to `young`, readers carry sealed entries to `carried`. */
export interface OpenFamily {
  young: string;
  carried: string;
  shards: number;
}

// Distinct prefixes (not suffixes): a workflow name may contain any character.
export const runningFamily = (workflowName: string): OpenFamily => ({
  young: `running:${workflowName}`,
  carried: `running-carried:${workflowName}`,
  shards: 1,
});
export const RECOVERY_INDEX = 'recovery';
export const recoveryFamily = (shards: number): OpenFamily => ({ young: RECOVERY_INDEX, carried: `${RECOVERY_INDEX}-carried`, shards });

/** Generations per registry page (open_gens partition): a day of one-minute generations. */
export const GENS_PER_PAGE = 1440;

export const pageOf = (gen: number, genMs: number): number => bucketOf(gen, genMs * GENS_PER_PAGE);

/** The first generation that is not sealed at `nowMs`: every one before it is. */
export const sealedBefore = (nowMs: number, genMs: number, marginMs: number): number => bucketOf(nowMs - marginMs, genMs);

/** A registry page whose every generation lies below the floor: nothing will read it again. */
export const pageBelowFloor = (page: number, genMs: number, floor: number): boolean => page + genMs * GENS_PER_PAGE <= floor;

/** Where an entry of generation `gen` is written now: its young generation, or, when that is already sealed, today's carried one. */
export function placement(family: OpenFamily, gen: number, layout: IndexLayout, nowMs: number): { index: string; gen: number; genMs: number } {
  if (gen >= sealedBefore(nowMs, layout.genMs, layout.sealMarginMs)) return { index: family.young, gen, genMs: layout.genMs };
  return { index: family.carried, gen: bucketOf(nowMs, layout.carriedGenMs), genMs: layout.carriedGenMs };
}
