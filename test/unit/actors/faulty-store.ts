import type { ExecutionCommit, ExecutionStore } from '../../../src/store/ports';

/**
 * A real execution store behind a switch that breaks its next commit the two ways a remote store
 * can: the write fails and nothing is stored ('reject'), or the write is stored but the answer is
 * lost ('timeout': applied, then an error). It also counts loads.
 */
export type CommitFault = 'reject' | 'timeout';

export function faultyStore(inner: ExecutionStore): ExecutionStore & { failNextCommit(f: CommitFault): void; loads: number; commits: number } {
  let fault: CommitFault | undefined;
  const extra = {
    loads: 0,
    commits: 0,
    failNextCommit(f: CommitFault) {
      fault = f;
    },
    async commit(c: ExecutionCommit): Promise<void> {
      const f = fault;
      fault = undefined;
      if (f === 'reject') throw new Error('store unavailable: nothing written');
      await inner.commit(c);
      extra.commits++;
      if (f === 'timeout') throw new Error('store timed out (the write was applied)');
    },
    async load(id: string) {
      extra.loads++;
      return inner.load(id);
    },
  };
  // Every other method is the real store's.
  return new Proxy(extra, {
    get(target, p) {
      if (p in target) return target[p as keyof typeof target];
      const v = (inner as unknown as Record<PropertyKey, unknown>)[p];
      return typeof v === 'function' ? v.bind(inner) : v;
    },
  }) as unknown as ExecutionStore & typeof extra;
}
