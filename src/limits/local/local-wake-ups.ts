import type { WakeUps } from '../ports';

/** Long-poll wake-ups within one process. */
export class LocalWakeUps implements WakeUps {
  private readonly waiters = new Map<string, Set<() => void>>();

  notify(queue: string): void {
    const set = this.waiters.get(queue);
    if (!set) return;
    this.waiters.delete(queue);
    for (const w of set) w();
  }

  wait(queue: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted || timeoutMs <= 0) return resolve(false);
      let set = this.waiters.get(queue);
      if (!set) this.waiters.set(queue, (set = new Set()));
      const done = (woken: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set!.delete(wake);
        resolve(woken);
      };
      const wake = (): void => done(true);
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      set.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    for (const q of [...this.waiters.keys()]) this.notify(q);
  }
}
