import { context, propagation, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** The OTLP settings of the configuration (the standard OpenTelemetry variables). */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME: string;
}

export interface Tracing {
  tracer: Tracer;
  /** Sends the spans still buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT with
 * the signal path `/v1/traces` appended (as the OpenTelemetry specification says); none without either.
 */
export function tracesUrl(s: TracingSettings): string | undefined {
  if (s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!s.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  return `${s.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Traces over OTLP/HTTP (JSON) when an endpoint is configured; undefined otherwise, and then no
 * span is ever made (callers check for it, so an unconfigured server pays nothing).
 */
export function createTracing(s: TracingSettings, opts: { version: string; hostName: string }): Tracing | undefined {
  const url = tracesUrl(s);
  if (!url) return undefined;
  // Process-wide, and kept once set: the parent of a span is the context of the async call that made it.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // traceparent in and out (HTTP requests, actor calls through the Dapr sidecar).
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': s.OTEL_SERVICE_NAME, 'service.version': opts.version, 'host.name': opts.hostName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }), scheduledDelayMillis: 1000 })],
  });
  return {
    tracer: provider.getTracer('baton', opts.version),
    shutdown: () => provider.shutdown(),
  };
}
