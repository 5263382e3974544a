import { compileLinearRegex, MAX_PROGRAM_SIZE, RegexRefusedError, RegexWorkBudget, RegexWorkLimitError } from '../../../src/lib/linear-regex';

// The RE2 adapter: answers as RegExp.prototype.test would for what both engines run, in linear time,
// and refuses what only a backtracking engine can run.

const refusal = (source: string, flags?: string): RegexRefusedError => {
  try {
    compileLinearRegex(source, flags);
  } catch (e) {
    expect(e).toBeInstanceOf(RegexRefusedError);
    return e as RegexRefusedError;
  }
  throw new Error(`/${source}/ was accepted`);
};

describe('compileLinearRegex', () => {
  it('runs a pattern that backtracks exponentially in JavaScript over thousands of characters, with the right answer', () => {
    const evil = compileLinearRegex('^(a+)+$');
    // Backtracking would try about 2^5000 ways before answering false.
    expect(evil.test(`${'a'.repeat(5000)}b`)).toBe(false);
    expect(evil.test('a'.repeat(5000))).toBe(true);
    expect(compileLinearRegex('(x+x+)+y').test('x'.repeat(10_000))).toBe(false);
    expect(compileLinearRegex('^(\\w+\\s?)*$').test(`${'word '.repeat(2000)}!`)).toBe(false);
  });

  it('answers as RegExp does for the syntax both engines share', () => {
    const cases: Array<[string, string, string]> = [
      ['^[a-z]+@[a-z]+\\.[a-z]{2,}$', '', 'ann@example.org'],
      ['^[a-z]+@[a-z]+\\.[a-z]{2,}$', '', 'ann@example'],
      ['^\\d{3}-\\d{4}$', '', '555-1234'],
      ['abc', 'i', 'xxABCxx'],
      ['^b', 'm', 'a\nb'],
      ['^b', '', 'a\nb'],
      ['a.b', 's', 'a\nb'],
      ['\\u0041', '', 'A'],
      ['(?<year>\\d{4})-\\d{2}', '', '2024-05'],
      ['\\p{L}+', 'u', 'été'],
      ['^a\\/b$', '', 'a/b'],
      ['x*?y', '', 'xxy'],
    ];
    for (const [source, flags, input] of cases) {
      expect([source, flags, input, compileLinearRegex(source, flags).test(input)]).toEqual([source, flags, input, new RegExp(source, flags).test(input)]);
    }
  });

  it('refuses backreferences and lookaround, saying why', () => {
    expect(refusal('(a)\\1').message).toMatch(/cannot run in linear time.*backreferences or lookaround/);
    expect(refusal('a(?=b)').message).toMatch(/cannot run in linear time/);
    expect(refusal('(?<!a)b').message).toMatch(/cannot run in linear time/);
    expect(refusal('(?!x)').message).toMatch(/cannot run in linear time/);
  });

  it('refuses unknown flags and programs too large to test cheaply', () => {
    expect(refusal('a', 'y').message).toMatch(/flag 'y' is not supported/);
    expect(refusal('(?:[a-z]{1,1000}){1,1000}').message).toMatch(/invalid repeat count|too large/);
    expect(refusal('[a-z]{1,1000}'.repeat(6)).message).toMatch(new RegExp(`too large: \\d+ instructions, at most ${MAX_PROGRAM_SIZE}`));
    expect(refusal('(?:)'.repeat(5000)).message).toMatch(/too long: 20000 characters, at most 10000/);
  });
});

describe('RegexWorkBudget', () => {
  it('charges characters × pattern size and refuses a test past the limit without running it', () => {
    const re = compileLinearRegex('^[a-z]+$');
    const budget = new RegexWorkBudget(re.size * 2000);
    expect(budget.test(re, 'a'.repeat(999))).toBe(true);
    expect(budget.workUsed).toBe(re.size * 1000);
    expect(() => budget.test(re, 'a'.repeat(1000))).toThrow(RegexWorkLimitError);
    expect(() => new RegexWorkBudget(100).test(re, 'a'.repeat(100))).toThrow(
      /100 characters cannot be checked against pattern \/\^\[a-z\]\+\$\/ within the limit of 100 steps/,
    );
  });
});
