import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Metrics } from '../metrics/ports';
import { routeLabelOf } from '../api/route-label';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Status label of a request whose client went away before the answer was sent (nginx's convention). */
const CLIENT_CLOSED = 499;

/**
 * Times every request by method, route template and status; with a tracer, each request is a
 * server span named `<METHOD> <route>`, child of the caller's `traceparent` when it sent one (an
 * actor call forwarded by the Dapr sidecar carries the caller's), and the parent of every span the
 * request's work makes.
 */
export function observedRequests(handler: Handler, metrics: Metrics, tracer?: Tracer): Handler {
  if (!tracer) {
    return (req, res) => {
      const start = performance.now();
      res.once('close', () =>
        metrics.httpRequest(req.method ?? 'GET', routeLabelOf(req), res.writableFinished ? res.statusCode : CLIENT_CLOSED, (performance.now() - start) / 1000),
      );
      handler(req, res);
    };
  }
  return (req, res) => {
    const start = performance.now();
    const method = req.method ?? 'GET';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    res.once('close', () => {
      const route = routeLabelOf(req);
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
      metrics.httpRequest(method, route, status, (performance.now() - start) / 1000);
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), () => handler(req, res));
  };
}
