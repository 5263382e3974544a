/** Go duration string for a non-negative number of milliseconds, as daprd parses `dueTime`. */
export const goDurationFromMs = (ms: number): string => `${Math.max(0, Math.ceil(ms))}ms`;
