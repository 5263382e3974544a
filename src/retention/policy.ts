import type { QueryAst } from '../search/ports';
import { FINAL_STATUSES, RetentionPolicySchema, type FinalStatus, type RetentionPolicy } from '../model/retention';
import { isTerminalWorkflow, type WorkflowStatus } from '../model/statuses';

const DAY_MS = 86_400_000;

/** The policy of each workflow name that has its own, and the server's for every other name. */
export interface RetentionRules {
  byName: ReadonlyMap<string, RetentionPolicy>;
  fallback: RetentionPolicy;
}

/** What one search of the index selects: ended before `endedBefore`, of these names (or of none of `excludeNames`). */
export interface PurgeSelection {
  names?: string[];
  excludeNames: string[];
  statuses: readonly FinalStatus[];
  endedBefore: number;
  archive: boolean;
}

/** An execution as the purge sees it (a search hit or a stored record). */
export interface EndedExecution {
  workflowType: string;
  status: string;
  endTime: number;
}

/**
 * The rules from the definitions: a name follows the `retention` of its highest version (a policy change
 * applies to the executions of older versions too); names whose highest version has none follow `fallback`.
 */
export function retentionRules(defs: ReadonlyArray<{ name: string; version: number; retention?: unknown }>, fallback: RetentionPolicy): RetentionRules {
  const latest = new Map<string, { version: number; retention?: unknown }>();
  for (const d of defs) if ((latest.get(d.name)?.version ?? -Infinity) < d.version) latest.set(d.name, d);
  const byName = new Map<string, RetentionPolicy>();
  for (const [name, d] of latest) {
    const parsed = RetentionPolicySchema.safeParse(d.retention);
    if (parsed.success) byName.set(name, parsed.data);
  }
  return { byName, fallback };
}

export const policyOf = (rules: RetentionRules, name: string): RetentionPolicy => rules.byName.get(name) ?? rules.fallback;

/** The last end time (exclusive) an execution under `policy` may have to be due at `now`; undefined when kept forever. */
export function cutoffOf(policy: RetentionPolicy, now: number): number | undefined {
  return policy.days > 0 ? now - policy.days * DAY_MS : undefined;
}

/** Whether the execution is due for purging at `now` under the rules. */
export function isDue(e: EndedExecution, rules: RetentionRules, now: number): boolean {
  if (!isTerminalWorkflow(e.status as WorkflowStatus) || !(e.endTime > 0)) return false;
  const policy = policyOf(rules, e.workflowType);
  const cutoff = cutoffOf(policy, now);
  return cutoff !== undefined && e.endTime < cutoff && (policy.statuses ?? FINAL_STATUSES).includes(e.status as FinalStatus);
}

/** The searches that find every due execution at `now`: one per policy with days > 0, none when everything is kept. */
export function purgeSelections(rules: RetentionRules, now: number): PurgeSelection[] {
  const selections: PurgeSelection[] = [];
  for (const [name, policy] of [...rules.byName].sort(([a], [b]) => a.localeCompare(b))) {
    const endedBefore = cutoffOf(policy, now);
    if (endedBefore !== undefined)
      selections.push({ names: [name], excludeNames: [], statuses: policy.statuses ?? FINAL_STATUSES, endedBefore, archive: policy.archive });
  }
  const endedBefore = cutoffOf(rules.fallback, now);
  if (endedBefore !== undefined)
    selections.push({
      excludeNames: [...rules.byName.keys()].sort(),
      statuses: rules.fallback.statuses ?? FINAL_STATUSES,
      endedBefore,
      archive: rules.fallback.archive,
    });
  return selections;
}

/**
 * The latest end time any selection accepts at `now` (undefined: nothing is due). An index of executions
 * created at or after it cannot be due whole yet: an execution ends after it was created.
 */
export function latestCutoff(selections: readonly PurgeSelection[]): number | undefined {
  return selections.length === 0 ? undefined : Math.max(...selections.map((s) => s.endedBefore));
}

/** The search query of a selection (every field is in WORKFLOW_SEARCH_FIELDS, so both index adapters translate it). */
export function selectionQuery(s: PurgeSelection): QueryAst {
  let q: QueryAst = {
    op: 'and',
    left: { op: 'in', field: 'status', values: [...s.statuses] },
    right: { op: 'cmp', field: 'endTime', cmp: '<', value: s.endedBefore },
  };
  if (s.names) q = { op: 'and', left: q, right: { op: 'in', field: 'workflowType', values: s.names } };
  for (const name of s.excludeNames) q = { op: 'and', left: q, right: { op: 'cmp', field: 'workflowType', cmp: '!=', value: name } };
  return q;
}

/** A workflow id as one key segment: characters outside A-Z a-z 0-9 _ - become =XX (UTF-8 hex), so any id is a valid key. */
const keySegment = (id: string): string =>
  id.replace(/[^A-Za-z0-9_-]/gu, (c) => [...Buffer.from(c)].map((b) => `=${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));

/** The object key of an archived execution: by the UTC day it ended, so a day's archive is one prefix. */
export function archiveKey(workflowId: string, endTime: number): string {
  const d = new Date(endTime);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `archive/${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${keySegment(workflowId)}.json`;
}
