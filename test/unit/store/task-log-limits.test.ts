import { logLineTooLong, storedLogLine, taskLogFull } from '../../../src/store/task-log-limits';

// The pure rules behind the task log bounds: sizes in UTF-8 bytes, cuts on character boundaries.

const limits = { lineBytes: 64, lines: 3 };

test('a line is measured in UTF-8 bytes', () => {
  expect(logLineTooLong('x'.repeat(64), limits)).toBeUndefined();
  expect(logLineTooLong('x'.repeat(65), limits)).toBe('Log line is 65 bytes, over the limit of 64 bytes (BATON_TASK_LOG_MAX_LINE_BYTES)');
  expect(logLineTooLong('😀'.repeat(16), limits)).toBeUndefined();
  expect(logLineTooLong('😀'.repeat(17), limits)).toMatch(/^Log line is 68 bytes/);
});

test('a stored line is cut on a character boundary, marked, and fits', () => {
  expect(storedLogLine('short', limits)).toBe('short');
  for (const ch of ['x', 'é', '€', '😀']) {
    const cut = storedLogLine(ch.repeat(100), limits);
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(64);
    expect(cut).toMatch(new RegExp(`^(${ch})+ …\\[cut: BATON_TASK_LOG_MAX_LINE_BYTES\\]$`, 'u'));
  }
});

test('a full log is named with its task and the setting', () => {
  expect(taskLogFull('t-1', limits)).toBe('Task t-1 already has 3 log lines, the most one task keeps (BATON_TASK_LOG_MAX_LINES)');
});
