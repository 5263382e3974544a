import { useCallback, useEffect, useRef, useState } from 'react';

// Loads data for a view: re-runs when `deps` change, on reload(), and every `pollMs` while given
// (live views); a slow answer for old deps never overwrites a newer one.

export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[], pollMs?: number): Async<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    load().then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e) => {
        if (mine !== seq.current) return;
        setError(e);
        setLoading(false);
      },
    );
  }, [...deps, tick]);

  useEffect(() => {
    if (!pollMs) return;
    const t = setInterval(reload, pollMs);
    return () => clearInterval(t);
  }, [pollMs, reload]);

  return { data, error, loading, reload };
}
