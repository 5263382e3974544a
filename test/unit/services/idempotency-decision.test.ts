import { idempotentStartOutcome, keyHolderState, STALE_CLAIM_MS } from '../../../src/services/idempotency-decision';

describe('idempotentStartOutcome', () => {
  it.each([
    ['FAIL', 'pending', 'conflict'],
    ['FAIL', 'open', 'conflict'],
    ['FAIL', 'ended', 'conflict'],
    ['RETURN_EXISTING', 'pending', 'retry-later'],
    ['RETURN_EXISTING', 'open', 'return-existing'],
    ['RETURN_EXISTING', 'ended', 'return-existing'],
    ['FAIL_ON_RUNNING', 'pending', 'conflict'],
    ['FAIL_ON_RUNNING', 'open', 'conflict'],
    ['FAIL_ON_RUNNING', 'ended', 'take-over'],
    ['FAIL', 'stale', 'take-over'],
    ['RETURN_EXISTING', 'stale', 'take-over'],
  ] as const)('%s with a holder %s: %s', (strategy, holder, outcome) => {
    expect(idempotentStartOutcome(strategy, holder)).toBe(outcome);
  });
});

describe('keyHolderState', () => {
  it('reads the status of an existing holder', () => {
    expect(keyHolderState('RUNNING', false, 0, 10)).toBe('open');
    expect(keyHolderState('COMPLETED', true, 0, 10)).toBe('ended');
  });
  it('takes a claim without an execution as pending, and as stale once older than the limit', () => {
    expect(keyHolderState(undefined, false, 1000, 1000 + STALE_CLAIM_MS)).toBe('pending');
    expect(keyHolderState(undefined, false, 1000, 1001 + STALE_CLAIM_MS)).toBe('stale');
  });
});
