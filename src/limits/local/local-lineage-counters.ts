import { LINEAGE_IDLE_MS, type DescendantLimits, type DescendantStart, type LineageCounters } from '../ports';

interface Tree {
  /** Ids of the descendants counted (at most maxDescendants). */
  ids: Set<string>;
  /** Start times (ms) within the last second, oldest first. */
  recent: number[];
  lastStart: number;
}

/** Most roots tracked at once: past it the one idle longest is forgotten (a runaway tree is never the idlest). */
export const LOCAL_LINEAGE_MAX_ROOTS = 100_000;

/** Descendant starts per root execution in one process; trees idle for `idleMs` are dropped. */
export class LocalLineageCounters implements LineageCounters {
  /** In order of last start, idlest first (each start moves its tree to the end). */
  private readonly trees = new Map<string, Tree>();

  constructor(
    private readonly idleMs = LINEAGE_IDLE_MS,
    private readonly maxRoots = LOCAL_LINEAGE_MAX_ROOTS,
  ) {}

  async tryStart(rootWorkflowId: string, workflowId: string, limits: DescendantLimits, now: number): Promise<DescendantStart> {
    this.forgetIdle(now);
    const tree = this.trees.get(rootWorkflowId) ?? { ids: new Set<string>(), recent: [], lastStart: now };
    if (tree.ids.has(workflowId)) return 'admitted';
    if (tree.ids.size >= limits.maxDescendants) return 'descendants';
    const since = now - 1000;
    while (tree.recent.length > 0 && tree.recent[0]! <= since) tree.recent.shift();
    if (tree.recent.length >= limits.maxPerSecond) return 'rate';
    tree.ids.add(workflowId);
    tree.recent.push(now);
    tree.lastStart = now;
    this.trees.delete(rootWorkflowId);
    this.trees.set(rootWorkflowId, tree);
    if (this.trees.size > this.maxRoots) this.trees.delete(this.trees.keys().next().value!);
    return 'admitted';
  }

  /** How many roots are tracked (for tests of the expiry). */
  get size(): number {
    return this.trees.size;
  }

  async close(): Promise<void> {
    this.trees.clear();
  }

  /** Drops the trees that started nothing for `idleMs`: they lead the map, so this stops at the first one still active. */
  private forgetIdle(now: number): void {
    for (const [root, tree] of this.trees) {
      if (now - tree.lastStart < this.idleMs) return;
      this.trees.delete(root);
    }
  }
}
