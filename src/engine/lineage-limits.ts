import type { Lineage } from '../model/lineage';

// Why a start that descends from another execution is refused: one reason per limit, naming its setting,
// shared by the engine (generations, known at scheduling) and the start admission (counters kept outside).

export interface LineageLimitSettings {
  /** Most generations below a root (BATON_MAX_WORKFLOW_GENERATIONS). */
  maxGenerations: number;
  /** Most executions descending from one root (BATON_MAX_DESCENDANTS_PER_ROOT). */
  maxDescendantsPerRoot: number;
  /** Most of those started in any one second (BATON_MAX_STARTS_PER_ROOT_PER_SECOND). */
  maxStartsPerRootPerSecond: number;
}

export type LineageLimit = 'generations' | 'descendants' | 'rate';

/** The reason for a refused start of workflow `name` in lineage `child`, over `limit` set to `max`. */
export function lineageRefusal(name: string, child: Lineage, limit: LineageLimit, max: number): string {
  const root = child.rootWorkflowId;
  switch (limit) {
    case 'generations':
      return `Workflow ${name} not started: it would be generation ${child.generation} below root execution ${root}, over the limit of ${max} (BATON_MAX_WORKFLOW_GENERATIONS)`;
    case 'descendants':
      return `Workflow ${name} not started: root execution ${root} already has ${max} descendant executions, the limit (BATON_MAX_DESCENDANTS_PER_ROOT)`;
    case 'rate':
      return `Workflow ${name} not started: root execution ${root} started ${max} descendant executions within the last second, the limit (BATON_MAX_STARTS_PER_ROOT_PER_SECOND)`;
  }
}

/** The generation limit, checked wherever the lineage is known (no counter needed). */
export const generationRefusal = (name: string, child: Lineage, maxGenerations: number): string | undefined =>
  child.generation > maxGenerations ? lineageRefusal(name, child, 'generations', maxGenerations) : undefined;
