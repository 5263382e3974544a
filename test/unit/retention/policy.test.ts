import { WorkflowDefSchema } from '../../../src/model/definitions';
import { archiveKey, isDue, latestCutoff, purgeSelections, retentionRules, selectionQuery } from '../../../src/retention/policy';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const keepForever = { days: 0, archive: false };

describe('retention policy (pure, injected clock)', () => {
  test('the latest cutoff is that of the shortest policy; nothing is due without one', () => {
    const rules = retentionRules(
      [
        { name: 'long', version: 1, retention: { days: 365 } },
        { name: 'short', version: 1, retention: { days: 7 } },
        { name: 'forever', version: 1, retention: { days: 0 } },
      ],
      { days: 30, archive: false },
    );
    expect(latestCutoff(purgeSelections(rules, NOW))).toBe(NOW - 7 * 86_400_000);
    expect(
      latestCutoff(purgeSelections(retentionRules([{ name: 'forever', version: 1, retention: { days: 0 } }], { days: 0, archive: false }), NOW)),
    ).toBeUndefined();
  });

  const rules = retentionRules(
    [
      { name: 'short', version: 1, retention: { days: 90 } }, // superseded by version 2
      { name: 'short', version: 2, retention: { days: 7, archive: true } },
      { name: 'long', version: 1, retention: { days: 365 } },
      { name: 'failures_kept', version: 1, retention: { days: 7, statuses: ['COMPLETED'] } },
      { name: 'plain', version: 3 },
    ],
    { days: 30, archive: false },
  );

  test('a name follows its highest version, names without a policy follow the server default', () => {
    expect(rules.byName.get('short')).toEqual({ days: 7, archive: true });
    expect(rules.byName.has('plain')).toBe(false);
    expect(isDue({ workflowType: 'plain', status: 'COMPLETED', endTime: NOW - 31 * DAY }, rules, NOW)).toBe(true);
    expect(isDue({ workflowType: 'plain', status: 'COMPLETED', endTime: NOW - 29 * DAY }, rules, NOW)).toBe(false);
    expect(isDue({ workflowType: 'short', status: 'FAILED', endTime: NOW - 8 * DAY }, rules, NOW)).toBe(true);
    expect(isDue({ workflowType: 'long', status: 'TERMINATED', endTime: NOW - 300 * DAY }, rules, NOW)).toBe(false);
  });

  test('open executions and executions without an end are never due; statuses restrict what goes', () => {
    expect(isDue({ workflowType: 'plain', status: 'RUNNING', endTime: NOW - 400 * DAY }, rules, NOW)).toBe(false);
    expect(isDue({ workflowType: 'plain', status: 'PAUSED', endTime: NOW - 400 * DAY }, rules, NOW)).toBe(false);
    expect(isDue({ workflowType: 'plain', status: 'COMPLETED', endTime: 0 }, rules, NOW)).toBe(false);
    expect(isDue({ workflowType: 'failures_kept', status: 'FAILED', endTime: NOW - 400 * DAY }, rules, NOW)).toBe(false);
    expect(isDue({ workflowType: 'failures_kept', status: 'COMPLETED', endTime: NOW - 8 * DAY }, rules, NOW)).toBe(true);
  });

  test('days 0 keeps forever: no selection at all with the default settings', () => {
    expect(purgeSelections(retentionRules([{ name: 'a', version: 1 }], keepForever), NOW)).toEqual([]);
    const r = retentionRules([{ name: 'a', version: 1, retention: { days: 0 } }], { days: 10, archive: false });
    expect(isDue({ workflowType: 'a', status: 'COMPLETED', endTime: 1 }, r, NOW)).toBe(false);
    // 'a' keeps forever and is excluded from the default's selection
    expect(purgeSelections(r, NOW)).toEqual([
      { excludeNames: ['a'], statuses: ['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'], endedBefore: NOW - 10 * DAY, archive: false },
    ]);
  });

  test('one selection per named policy and one for the default that excludes the named ones', () => {
    const s = purgeSelections(rules, NOW);
    expect(s.map((x) => [x.names, x.excludeNames, x.endedBefore, x.archive])).toEqual([
      [['failures_kept'], [], NOW - 7 * DAY, false],
      [['long'], [], NOW - 365 * DAY, false],
      [['short'], [], NOW - 7 * DAY, true],
      [undefined, ['failures_kept', 'long', 'short'], NOW - 30 * DAY, false],
    ]);
    expect(selectionQuery(s[3]!)).toEqual({
      op: 'and',
      left: {
        op: 'and',
        left: {
          op: 'and',
          left: {
            op: 'and',
            left: { op: 'in', field: 'status', values: ['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'] },
            right: { op: 'cmp', field: 'endTime', cmp: '<', value: NOW - 30 * DAY },
          },
          right: { op: 'cmp', field: 'workflowType', cmp: '!=', value: 'failures_kept' },
        },
        right: { op: 'cmp', field: 'workflowType', cmp: '!=', value: 'long' },
      },
      right: { op: 'cmp', field: 'workflowType', cmp: '!=', value: 'short' },
    });
  });

  test('archive keys are grouped by the UTC day the execution ended', () => {
    expect(archiveKey('0f1e-2d', Date.UTC(2026, 0, 5, 23, 59))).toBe('archive/2026/01/05/0f1e-2d.json');
    expect(archiveKey('a/b', Date.UTC(2026, 11, 31))).toBe('archive/2026/12/31/a=2Fb.json');
    expect(archiveKey('.x é', Date.UTC(2026, 11, 31))).toBe('archive/2026/12/31/=2Ex=20=C3=A9.json');
  });

  test('a definition keeps a valid retention field and refuses a bad one', () => {
    const base = { name: 'w', tasks: [{ name: 't', taskReferenceName: 't', type: 'SIMPLE' }] };
    expect(WorkflowDefSchema.parse({ ...base, retention: { days: 3, archive: true } }).retention).toEqual({ days: 3, archive: true });
    expect(WorkflowDefSchema.safeParse({ ...base, retention: { days: -1 } }).success).toBe(false);
    expect(WorkflowDefSchema.safeParse({ ...base, retention: { days: 3, statuses: ['RUNNING'] } }).success).toBe(false);
    expect(WorkflowDefSchema.safeParse({ ...base, retention: { days: 3, ttl: 1 } }).success).toBe(false);
  });
});
