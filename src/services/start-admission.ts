import { generationRefusal, lineageRefusal, type LineageLimit, type LineageLimitSettings } from '../engine/lineage-limits';
import type { LineageCounters } from '../limits/ports';
import type { Lineage } from '../model/lineage';

/**
 * Decides whether an execution that descends from another may start: its generation, then its root's
 * counters (descendants, starts in the last second), shared by the replicas. Roots are never counted.
 */
export class StartAdmission {
  constructor(
    private readonly counters: LineageCounters,
    private readonly settings: LineageLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Which limit refuses workflow `name` starting as `workflowId` in lineage `lineage`, and why; undefined once the start is counted. */
  async refusal(name: string, workflowId: string, lineage: Lineage): Promise<{ limit: LineageLimit; reason: string } | undefined> {
    if (lineage.generation === 0) return undefined;
    const s = this.settings;
    const tooDeep = generationRefusal(name, lineage, s.maxGenerations);
    if (tooDeep) return { limit: 'generations', reason: tooDeep };
    const outcome = await this.counters.tryStart(
      lineage.rootWorkflowId,
      workflowId,
      { maxDescendants: s.maxDescendantsPerRoot, maxPerSecond: s.maxStartsPerRootPerSecond },
      this.now(),
    );
    if (outcome === 'admitted') return undefined;
    return {
      limit: outcome,
      reason: lineageRefusal(name, lineage, outcome, outcome === 'descendants' ? s.maxDescendantsPerRoot : s.maxStartsPerRootPerSecond),
    };
  }
}
