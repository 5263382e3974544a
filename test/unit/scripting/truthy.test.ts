import { isConductorTrue, isTruthy } from '../../../src/scripting/truthy';

describe('isTruthy', () => {
  it.each([false, 0, -0, '', null, undefined, Number.NaN])('%p is falsy', (value) => {
    expect(isTruthy(value)).toBe(false);
  });

  it.each([true, 1, -1, 'false', '0', {}, [], 0.5])('%p is truthy', (value) => {
    expect(isTruthy(value)).toBe(true);
  });
});

describe('isConductorTrue', () => {
  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0.5, true],
    [0, false],
    [-1, false],
    ['true', false],
    [{}, false],
    [[1], false],
    [null, false],
  ])('%p counts as %p', (value, expected) => {
    expect(isConductorTrue(value)).toBe(expected);
  });
});
