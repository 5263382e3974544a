import type { Difference } from './normalise';

/**
 * Every known difference between Baton and Conductor OSS 3.32.3 that the differential suite
 * (test/oracle) observes. A difference the suite finds must match an entry here (scenario and path)
 * or the scenario fails. README's "Differences from Conductor" lists the same entries.
 *
 * `fix` says whether the difference is a Baton bug to fix (and then delete the entry) or a choice.
 */
export interface KnownDifference {
  id: string;
  /** Scenario names it shows up in. */
  scenarios: RegExp;
  /** Paths (as `diff` writes them: `wf.tasks[0].outputData.x`) it covers. */
  path: RegExp;
  reason: string;
  fix: 'bug' | 'intended';
}

export const DIFFERENCES: KnownDifference[] = [];

/** The differences no entry explains. */
export function unexplained(scenario: string, diffs: Difference[], known: KnownDifference[] = DIFFERENCES): Difference[] {
  return diffs.filter((d) => !known.some((k) => k.scenarios.test(scenario) && k.path.test(d.path)));
}
