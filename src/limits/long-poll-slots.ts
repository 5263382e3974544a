/**
 * Polls in flight per client, counted in this process (each holds a connection and a waiter here):
 * BATON_MAX_LONG_POLLS_PER_CLIENT. Pure bookkeeping; who a client is, the caller decides.
 */
export class LongPollSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly perClient: number) {}

  /** Takes a slot for `client`: the function that gives it back (once), or undefined when the client holds them all. */
  take(client: string): (() => void) | undefined {
    const n = this.held.get(client) ?? 0;
    if (n >= this.perClient) return undefined;
    this.held.set(client, n + 1);
    let returned = false;
    return () => {
      if (returned) return;
      returned = true;
      const left = (this.held.get(client) ?? 1) - 1;
      // A client without polls leaves no entry: the map is as big as the clients polling right now.
      if (left <= 0) this.held.delete(client);
      else this.held.set(client, left);
    };
  }

  /** Polls `client` has in flight. */
  inFlight(client: string): number {
    return this.held.get(client) ?? 0;
  }

  /** Clients with a poll in flight. */
  get clients(): number {
    return this.held.size;
  }
}
