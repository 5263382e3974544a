import { parseExecutionQuery } from '../../../src/services/schedule-service';
import { ApiError } from '../../../src/services/errors';

// The scheduler's executions query (`scheduleName="a" AND state IN (FAILED)`), read in linear time.

describe('parseExecutionQuery', () => {
  it('reads clauses joined by AND, quoted or not, = or IN', () => {
    expect(parseExecutionQuery('scheduleName="nightly" AND state IN (FAILED)')).toEqual({ scheduleName: 'nightly', state: 'FAILED' });
    expect(parseExecutionQuery("  workflowName = 'wf one'   and   executionId=abc  ")).toEqual({ workflowName: 'wf one', text: 'abc' });
    expect(parseExecutionQuery('*')).toEqual({});
    expect(() => parseExecutionQuery('color=red')).toThrow(ApiError);
    expect(() => parseExecutionQuery('scheduleName')).toThrow('Invalid query clause: scheduleName');
    for (const bad of ['scheduleName=', 'state IN ()', 'stateIN (FAILED)', 'state IN (FAILED', '=x'])
      expect(() => parseExecutionQuery(bad)).toThrow(`Invalid query clause: ${bad}`);
    expect(() => parseExecutionQuery('state IN (FAILED, EXECUTED)')).toThrow('Only one value is supported');
  });

  it('reads a value with 200,000 spaces inside, and a query of 200,000 spaces and junk, in one pass', () => {
    // `\s+AND\s+` and `(.+?)\s*$` backtracked quadratically over these (minutes at this length).
    expect(parseExecutionQuery(`scheduleName=x${' '.repeat(200_000)}y`)).toEqual({ scheduleName: `x${' '.repeat(200_000)}y` });
    expect(() => parseExecutionQuery(`a${' '.repeat(200_000)}!`)).toThrow(/^Invalid query clause/);
  });
});
