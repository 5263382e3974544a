import { context, trace, SpanStatusCode, type Tracer } from '@opentelemetry/api';

/** Spans of the wrapped calls: named `${prefix} ${method}`, only inside a span already open (an HTTP request, an actor turn). */
export interface CallSpans {
  tracer: Tracer;
  prefix: string;
}

/**
 * The same object, with every method that answers a promise timed (and traced when `spans` is
 * given). A Proxy rather than a hand-written class per port: the store and index ports grow
 * methods, and a wrapper that lists them would silently stop timing the new ones.
 * Methods answering anything else (async iterables, plain values) pass through untimed.
 */
export function timedCalls<T extends object>(target: T, record: (operation: string, seconds: number) => void, spans?: CallSpans): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, key, receiver) {
      const value = Reflect.get(t, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      let w = wrapped.get(key);
      if (w === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        w = function (this: unknown, ...args: unknown[]): unknown {
          const start = performance.now();
          const parent = spans && trace.getSpan(context.active());
          if (parent && spans) {
            const span = spans.tracer.startSpan(`${spans.prefix} ${key}`);
            const result = context.with(trace.setSpan(context.active(), span), () => fn.apply(t, args));
            return settle(result, key, start, record, (err) => {
              if (err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
              span.end();
            });
          }
          return settle(fn.apply(t, args), key, start, record);
        };
        wrapped.set(key, w);
      }
      return w;
    },
  });
}

function settle(result: unknown, op: string, start: number, record: (operation: string, seconds: number) => void, done?: (err: unknown) => void): unknown {
  if (!(result instanceof Promise)) {
    done?.(undefined);
    return result;
  }
  return result.then(
    (v) => {
      record(op, (performance.now() - start) / 1000);
      done?.(undefined);
      return v;
    },
    (e: unknown) => {
      record(op, (performance.now() - start) / 1000);
      done?.(e ?? new Error('rejected'));
      throw e;
    },
  );
}
