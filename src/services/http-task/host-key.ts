// The key per-host limits count by (the fair scheduler's BATON_HTTP_TASK_PER_HOST and queue bound).

/** `host:port` of the task's URI, lower-cased; undefined when the URI does not parse. */
export function hostKeyOf(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  try {
    const u = new URL(uri);
    return `${u.hostname.toLowerCase()}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}
