import { LINEAGE_IDLE_MS, type DescendantLimits, type DescendantStart, type LineageCounters } from '../ports';

interface Tree {
  /** Ids of the descendants counted (at most maxDescendants). */
  ids: Set<string>;
  /** Start times (ms) within the last second, oldest first. */
  recent: number[];
  lastStart: number;
}

/** Descendant starts per root execution in one process; trees idle for `idleMs` are dropped. */
export class LocalLineageCounters implements LineageCounters {
  private readonly trees = new Map<string, Tree>();
  private lastSweep = 0;

  constructor(private readonly idleMs = LINEAGE_IDLE_MS) {}

  async tryStart(rootWorkflowId: string, workflowId: string, limits: DescendantLimits, now: number): Promise<DescendantStart> {
    this.sweep(now);
    let tree = this.trees.get(rootWorkflowId);
    if (!tree) this.trees.set(rootWorkflowId, (tree = { ids: new Set(), recent: [], lastStart: now }));
    if (tree.ids.has(workflowId)) return 'admitted';
    if (tree.ids.size >= limits.maxDescendants) return 'descendants';
    const since = now - 1000;
    while (tree.recent.length > 0 && tree.recent[0]! <= since) tree.recent.shift();
    if (tree.recent.length >= limits.maxPerSecond) return 'rate';
    tree.ids.add(workflowId);
    tree.recent.push(now);
    tree.lastStart = now;
    return 'admitted';
  }

  /** How many roots are tracked (for tests of the expiry). */
  get size(): number {
    return this.trees.size;
  }

  async close(): Promise<void> {
    this.trees.clear();
  }

  /** At most once per minute, drops the trees that started nothing for `idleMs`. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [root, tree] of this.trees) if (now - tree.lastStart >= this.idleMs) this.trees.delete(root);
  }
}
