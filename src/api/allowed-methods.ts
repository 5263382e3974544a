import type { RequestHandler } from 'express';
import { Errors } from '../model/named-errors';

// A path Baton serves, asked with a method no route serves there, is a 405 with an Allow header
// (as Spring answers Conductor's clients), not a 404 or the 400 of a route the path only looks
// like; OPTIONS answers the same Allow header. The methods of a path are those of every route
// template it matches, as routes overlap in Conductor (POST /api/workflow/{name} also serves
// /api/workflow/search); a parameter with a closed set of values (a task status) matches only those.

export interface RouteTemplate {
  method: string;
  /** `{name}` stands for one path segment. */
  path: string;
  /** The values a path parameter may take, where they are a closed set. */
  pathEnums?: Readonly<Record<string, readonly string[]>>;
}

/** A literal segment, or a parameter (any non-empty segment, or one of its values). */
type Segment = { literal: string } | { values?: ReadonlySet<string> };
export type MethodTable = ReadonlyArray<{ segments: readonly Segment[]; methods: ReadonlySet<string> }>;

/** Groups the routes by template. */
export function methodTable(routes: ReadonlyArray<RouteTemplate>): MethodTable {
  const byPath = new Map<string, { route: RouteTemplate; methods: Set<string> }>();
  for (const r of routes) {
    const entry = byPath.get(r.path) ?? { route: r, methods: new Set<string>() };
    entry.methods.add(r.method.toUpperCase());
    byPath.set(r.path, entry);
  }
  return [...byPath.values()].map(({ route, methods }) => ({
    segments: route.path.split('/').map((s): Segment => {
      const param = /^\{([^}]+)\}$/.exec(s)?.[1];
      if (param === undefined) return { literal: s };
      const values = route.pathEnums?.[param];
      return values ? { values: new Set(values) } : {};
    }),
    methods,
  }));
}

const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

const matches = (segment: Segment, part: string): boolean =>
  'literal' in segment ? segment.literal === part : part !== '' && (segment.values === undefined || segment.values.has(decoded(part)));

/** The methods `path` is served with, HEAD wherever GET is; empty when no route has this path. */
export function allowedMethods(table: MethodTable, path: string): string[] {
  const parts = path.split('/');
  const out = new Set<string>();
  for (const t of table) {
    if (t.segments.length === parts.length && t.segments.every((s, i) => matches(s, parts[i]!))) for (const m of t.methods) out.add(m);
  }
  if (out.has('GET')) out.add('HEAD');
  return [...out].sort();
}

/** OPTIONS and unserved methods of served paths; paths no route has go on (to the 404). Mount before the routers. */
export function methodGuard(table: MethodTable): RequestHandler {
  return (req, res, next) => {
    const allow = allowedMethods(table, req.path);
    if (allow.length === 0 || (req.method !== 'OPTIONS' && allow.includes(req.method))) return next();
    res.set('Allow', [...allow, 'OPTIONS'].join(', '));
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next(Errors.METHOD_NOT_ALLOWED(req.method, req.path, allow.join(', ')));
  };
}
