import { Errors } from '../model/named-errors';
import type { RouteTable } from './route-table';

/** The Prometheus exposition of this process (src/metrics/prometheus-metrics.ts). */
export interface MetricsExposition {
  exposition(): Promise<{ contentType: string; text: string }>;
}

/**
 * GET /metrics: Prometheus's text format, open like /health (scrapers carry no Baton token; the
 * series carry workflow and task names, never ids or payloads). Each replica serves its own.
 */
export function metricsRoute(t: RouteTable, metrics: MetricsExposition | undefined): void {
  t.get(
    '/metrics',
    {
      permission: 'public',
      summary: "Prometheus metrics of this process (text exposition format); docs/operations.md 'Metrics and traces' lists them",
      res: 'text',
    },
    async (_req, res) => {
      if (!metrics) throw Errors.METRICS_OFF();
      const { contentType, text } = await metrics.exposition();
      res.type(contentType).send(text);
    },
  );
}
