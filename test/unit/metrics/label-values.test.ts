import { LabelValues, OTHER_LABEL_VALUE } from '../../../src/metrics/label-values';

// Which values of a name label get a series of their own.

test('admits values up to the cap, keeps them, and folds the rest into "other"', () => {
  const l = new LabelValues(2);
  expect(l.of('a')).toBe('a');
  expect(l.of('b')).toBe('b');
  expect(l.of('c')).toBe(OTHER_LABEL_VALUE);
  expect(l.of('a')).toBe('a');
  expect([...l.values()]).toEqual(['a', 'b']);
});

test('a value not to be admitted takes no place; one admitted before keeps its own', () => {
  const l = new LabelValues(1);
  expect(l.of('asked', false)).toBe(OTHER_LABEL_VALUE);
  expect(l.of('used')).toBe('used');
  expect(l.of('used', false)).toBe('used');
  expect([...l.values()]).toEqual(['used']);
});

test('a value spelled "other" is counted with the folded ones and takes no place', () => {
  const l = new LabelValues(1);
  expect(l.of(OTHER_LABEL_VALUE)).toBe(OTHER_LABEL_VALUE);
  expect(l.of('a')).toBe('a');
});
