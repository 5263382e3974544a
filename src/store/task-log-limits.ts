// Bounds on task logs (`POST /api/tasks/{taskId}/log`, a worker result's `logs`): a longest line and
// a most lines per task, kept by every store. Past the count a task's newest lines are refused, never
// its oldest dropped: the first lines say what the task did, and nothing is deleted to make room.

export interface TaskLogLimits {
  /** Longest log line, in bytes of UTF-8 (BATON_TASK_LOG_MAX_LINE_BYTES). */
  lineBytes: number;
  /** Most log lines one task keeps (BATON_TASK_LOG_MAX_LINES). */
  lines: number;
}

export const DEFAULT_TASK_LOG_LIMITS: TaskLogLimits = { lineBytes: 4096, lines: 500 };

/** Why a line is too long to be taken as sent; undefined when it fits. */
export function logLineTooLong(line: string, limits: TaskLogLimits): string | undefined {
  const size = Buffer.byteLength(line, 'utf8');
  if (size <= limits.lineBytes) return undefined;
  return `Log line is ${size} bytes, over the limit of ${limits.lineBytes} bytes (BATON_TASK_LOG_MAX_LINE_BYTES)`;
}

/** Why a task takes no more lines. */
export const taskLogFull = (taskId: string, limits: TaskLogLimits): string =>
  `Task ${taskId} already has ${limits.lines} log lines, the most one task keeps (BATON_TASK_LOG_MAX_LINES)`;

const CUT_MARK = ' …[cut: BATON_TASK_LOG_MAX_LINE_BYTES]';

/** The line as a store keeps it: at most `lineBytes` bytes, a longer one cut on a character boundary and marked as cut. */
export function storedLogLine(line: string, limits: TaskLogLimits): string {
  if (Buffer.byteLength(line, 'utf8') <= limits.lineBytes) return line;
  const room = Math.max(0, limits.lineBytes - Buffer.byteLength(CUT_MARK, 'utf8'));
  // TextDecoder drops a character split at the cut rather than writing half of it.
  const head = new TextDecoder().decode(Buffer.from(line, 'utf8').subarray(0, room)).replace(/\uFFFD$/, '');
  return head + CUT_MARK;
}
