import type { IncomingMessage } from 'node:http';

// The route template a request matched, for metric labels and span names: never the raw path,
// whose ids would make one series per execution.

/** Set by the hot path (src/api/hot-path.ts), which answers without express's router. */
export const ROUTE_TEMPLATE = Symbol('baton.routeTemplate');

type Labelled = IncomingMessage & { [ROUTE_TEMPLATE]?: string; route?: { path?: unknown } };

const fromExpress = new Map<string, string>();

/** `{name}` form of the template (as in /api-docs); 'unmatched' when no route took the request (404, refused by the gate). */
export function routeLabelOf(req: IncomingMessage): string {
  const r = req as Labelled;
  const hot = r[ROUTE_TEMPLATE];
  if (hot !== undefined) return hot;
  const path = r.route?.path;
  if (typeof path !== 'string') return 'unmatched';
  let label = fromExpress.get(path);
  if (label === undefined) fromExpress.set(path, (label = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*([A-Za-z0-9_]+)/g, '{$1}')));
  return label;
}

export function setRouteLabel(req: IncomingMessage, template: string): void {
  (req as Labelled)[ROUTE_TEMPLATE] = template;
}
