import { v7 } from 'uuid';
import { derivedUuid } from '../../../src/ids';
import { periodIndexPatterns } from '../../../src/search/elasticsearch/es-mappings';
import { indexForExecution, parsePeriodIndex, periodLabel, uuidV7Time } from '../../../src/search/elasticsearch/index-period';

const at = (iso: string): number => Date.parse(iso);
const v7At = (iso: string): string => v7({ msecs: at(iso) });

describe('index periods from execution ids', () => {
  test('a UUIDv7 gives back the millisecond it was made in, in either case', () => {
    const id = v7At('2026-01-31T23:59:59.999Z');
    expect(uuidV7Time(id)).toBe(at('2026-01-31T23:59:59.999Z'));
    expect(uuidV7Time(id.toUpperCase())).toBe(at('2026-01-31T23:59:59.999Z'));
  });

  test.each([
    ['a derived v5 id', derivedUuid('schedule:nightly:1')],
    ['a v4 id', '3b241101-e2bb-4255-8caf-4136c566a962'],
    ['a client id', 'order-2026-01'],
    ['an empty id', ''],
    ['a v7 id with a bad variant', '01a225a7-283c-765f-c537-3e066c790b19'],
    ['a v7 id with more after it', '01a225a7-283c-765f-b537-3e066c790b19x'],
    ['a v7 id without dashes', '01a225a7283c765fb5373e066c790b19'],
  ])('%s carries no time and goes to the undated index', (_, id) => {
    expect(uuidV7Time(id)).toBeUndefined();
    expect(indexForExecution('p', 'workflow', id, 'month')).toBe('p_workflow_v1');
    expect(indexForExecution('p', 'task', id, 'day')).toBe('p_task_v1');
  });

  test('the period is the UTC month (or day) of the id, at its edges', () => {
    expect(indexForExecution('p', 'workflow', v7At('2026-01-31T23:59:59.999Z'), 'month')).toBe('p_workflow_2026.01');
    expect(indexForExecution('p', 'task', v7At('2026-02-01T00:00:00.000Z'), 'month')).toBe('p_task_2026.02');
    expect(indexForExecution('p', 'workflow', v7At('2026-12-31T23:59:59.999Z'), 'day')).toBe('p_workflow_2026.12.31');
    expect(indexForExecution('p', 'workflow', v7At('2026-01-01T00:00:00.000Z'), 'none')).toBe('p_workflow_v1');
    expect(periodLabel(0, 'month')).toBe('1970.01');
    // Created before the cut-over: the undated index, where a release without periods wrote it.
    const since = at('2026-03-01T00:00:00Z');
    expect(indexForExecution('p', 'task', v7At('2026-02-28T23:59:59.999Z'), 'month', since)).toBe('p_task_v1');
    expect(indexForExecution('p', 'task', v7At('2026-03-01T00:00:00.000Z'), 'month', since)).toBe('p_task_2026.03');
  });

  test('an index name is read back as its period with its time range; other names are not periods', () => {
    expect(parsePeriodIndex('p', 'workflow', 'p_workflow_2026.02')).toEqual({
      label: '2026.02',
      start: at('2026-02-01T00:00:00Z'),
      end: at('2026-03-01T00:00:00Z'),
    });
    expect(parsePeriodIndex('p', 'workflow', 'p_workflow_2026.12')).toEqual({
      label: '2026.12',
      start: at('2026-12-01T00:00:00Z'),
      end: at('2027-01-01T00:00:00Z'),
    });
    expect(parsePeriodIndex('p', 'workflow', 'p_workflow_2028.02.29')).toEqual({
      label: '2028.02.29',
      start: at('2028-02-29T00:00:00Z'),
      end: at('2028-03-01T00:00:00Z'),
    });
    for (const name of [
      'p_workflow_v1',
      'p_task_2026.02',
      'q_workflow_2026.02',
      'p_workflow_2026.13',
      'p_workflow_2026.00',
      'p_workflow_2026.02.30',
      'p_workflow_2026.02.00',
      'p_workflow_2026.2',
      'p_workflow_x_2026.02',
    ])
      expect({ name, period: parsePeriodIndex('p', 'workflow', name) }).toEqual({ name, period: undefined });
  });

  test('every name written for a v7 id is matched by the period template and read back as the period it came from', () => {
    for (const iso of ['1970-01-01T00:00:00Z', '2026-06-15T12:00:00Z', '2999-12-31T23:00:00Z']) {
      for (const period of ['month', 'day'] as const) {
        const name = indexForExecution('p', 'workflow', v7At(iso), period);
        expect(periodIndexPatterns('p', 'workflow').some((pattern) => name.startsWith(pattern.slice(0, -1)))).toBe(true);
        const back = parsePeriodIndex('p', 'workflow', name)!;
        expect(back.start <= at(iso) && at(iso) < back.end).toBe(true);
      }
    }
    expect(periodIndexPatterns('p', 'workflow').some((pattern) => 'p_workflow_v1'.startsWith(pattern.slice(0, -1)))).toBe(false);
  });
});
