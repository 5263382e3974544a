// At most `perHost` HTTP calls in flight to one host (and port), so a slow host cannot hold every
// HTTP worker. Never waits: a task whose host is full stays in its queue and is tried again later.
// Hand-written: a non-blocking keyed counter is a few lines, the semaphore libraries all queue waiters.

export type ReleaseSlot = () => void;

export class HostSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly perHost: number) {}

  /** Takes a slot for `host`; undefined when the host already has `perHost` calls in flight. Release once. */
  tryAcquire(host: string): ReleaseSlot | undefined {
    const n = this.inFlight.get(host) ?? 0;
    if (n >= this.perHost) return undefined;
    this.inFlight.set(host, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(host) ?? 1) - 1;
      if (left > 0) this.inFlight.set(host, left);
      else this.inFlight.delete(host);
    };
  }

  /** Calls in flight to `host`. */
  count(host: string): number {
    return this.inFlight.get(host) ?? 0;
  }
}

/** The key per-host limits count by: `host:port` of the task's URI, lower-cased; undefined when the URI does not parse. */
export function hostKeyOf(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  try {
    const u = new URL(uri);
    return `${u.hostname.toLowerCase()}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}
