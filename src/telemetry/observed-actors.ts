import { context, trace, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { Metrics } from '../metrics/ports';
import { actorHooks } from '../runtime/actor-hooks';
import type { Actor, ActorFactory } from '../runtime/ports';

/**
 * Counts activations and times every turn of an actor type; with a tracer, each turn is a span
 * (`actor <type>.<method>`) whose children are the store calls it made, under the HTTP request or
 * the remote actor call that led to it.
 */
export const observedActor =
  (type: string, factory: ActorFactory, metrics: Metrics, tracer?: Tracer): ActorFactory =>
  (ctx) => {
    const inner = factory(ctx);
    const turn = <T>(method: string, run: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const done = (): void => metrics.actorTurn(type, method, (performance.now() - start) / 1000);
      if (!tracer) return run().finally(done);
      const span = tracer.startSpan(`actor ${type}.${method}`, {
        attributes: { 'baton.actor.type': type, 'baton.actor.id': ctx.id, 'baton.actor.method': method },
      });
      return context.with(trace.setSpan(context.active(), span), run).then(
        (v) => {
          done();
          span.end();
          return v;
        },
        (e: unknown) => {
          done();
          span.recordException(e instanceof Error ? e : String(e));
          span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
          span.end();
          throw e;
        },
      );
    };
    return {
      ...actorHooks(inner),
      async onActivate() {
        metrics.actorActivated(type);
        await inner.onActivate?.();
      },
      invoke: (method, arg) => turn(method, () => inner.invoke(method, arg)),
      // Reminder names are the actor's own and may carry ids: the label says only that a reminder fired.
      onReminder: (name) => turn('reminder', () => inner.onReminder(name)),
    } satisfies Actor;
  };
