import { checkObjectKey, checkObjectPrefix, InvalidObjectKeyError, objectKeyProblem } from '../../../src/objects/object-keys';

describe('object keys', () => {
  it('takes segments of letters, digits and ._=- joined by /', () => {
    for (const key of ['a', 'payloads/workflow/input/0b1c-2d.json', 'archive/day=2026-11-28/x_y.json', 'A.b.C']) expect(objectKeyProblem(key)).toBeUndefined();
  });

  it('refuses what could leave the store directory or is outside the character set', () => {
    for (const key of [
      '',
      '..',
      '../a',
      'a/../b',
      './a',
      'a/./b',
      '/a',
      'a/',
      'a//b',
      '.hidden',
      'a/.tmp',
      'a b',
      'a\\b',
      'ä',
      'a%2Fb',
      'a:b',
      'x'.repeat(1025),
    ]) {
      expect(objectKeyProblem(key)).toBeDefined();
      expect(() => checkObjectKey(key)).toThrow(InvalidObjectKeyError);
    }
  });

  it('takes a partial prefix, and the empty one', () => {
    expect(checkObjectPrefix('')).toBe('');
    expect(checkObjectPrefix('payloads/')).toBe('payloads/');
    expect(checkObjectPrefix('archive/day=2026-')).toBe('archive/day=2026-');
    expect(() => checkObjectPrefix('../')).toThrow(InvalidObjectKeyError);
  });
});
