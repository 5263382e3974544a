import type { Permission } from '../auth/roles';

// Finds the route of the table a request names, as express routes it: literal segments
// case-insensitively, `{param}` for one non-empty segment, one trailing slash ignored, HEAD as GET.
// Built once from the route table at start-up: the gate and the hot path read it before express does.

/** A row of the route table as far as matching goes; `method` in either case. */
export interface MatchableRoute {
  method: string;
  /** Literal segments and `{param}` segments. */
  path: string;
  permission: Permission;
}

export interface RouteMatch<R extends MatchableRoute> {
  route: R;
  /** Path parameters by name, as sent (not decoded). */
  params: Record<string, string>;
}

interface Node<R> {
  literals: Map<string, Node<R>>;
  param?: Node<R>;
  route?: R;
}
const node = <R>(): Node<R> => ({ literals: new Map() });

/** A path's segments after its leading slash, one trailing empty segment dropped (express ignores one trailing slash). */
export function segmentsOf(path: string): string[] {
  const parts = path.split('/');
  parts.shift();
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

const paramName = (seg: string): string | undefined => (seg.startsWith('{') && seg.endsWith('}') ? seg.slice(1, -1) : undefined);

/** Literal segments win over parameters (backtracking where the literal path does not continue), as the table's registration order makes express do. */
export class RouteMatcher<R extends MatchableRoute> {
  private readonly roots = new Map<string, Node<R>>();

  constructor(routes: readonly R[]) {
    for (const r of routes) {
      const method = r.method.toUpperCase();
      let at = this.roots.get(method) ?? node<R>();
      this.roots.set(method, at);
      for (const seg of segmentsOf(r.path)) {
        if (paramName(seg) !== undefined) at = at.param ??= node();
        else {
          const key = seg.toLowerCase();
          const next = at.literals.get(key) ?? node<R>();
          at.literals.set(key, next);
          at = next;
        }
      }
      // Two routes of one shape: express runs the first; differing permissions would make the gate judge another route than runs.
      if (at.route && at.route.permission !== r.permission) throw new Error(`conflicting permissions for ${method} ${r.path} and ${at.route.path}`);
      at.route ??= r;
    }
  }

  /** The route serving `method` on `path` (the URL path without its query), if one does. */
  match(method: string | undefined, path: string): RouteMatch<R> | undefined {
    const root = this.roots.get(method === 'HEAD' ? 'GET' : (method ?? ''));
    if (!root) return undefined;
    const segs = segmentsOf(path);
    const route = this.walk(root, segs, 0);
    if (!route) return undefined;
    const params: Record<string, string> = {};
    segmentsOf(route.path).forEach((seg, i) => {
      const name = paramName(seg);
      if (name !== undefined) params[name] = segs[i]!;
    });
    return { route, params };
  }

  private walk(at: Node<R>, segs: string[], i: number): R | undefined {
    if (i === segs.length) return at.route;
    const seg = segs[i]!;
    const lit = at.literals.get(seg.toLowerCase());
    const viaLiteral = lit && this.walk(lit, segs, i + 1);
    if (viaLiteral) return viaLiteral;
    return at.param && seg !== '' ? this.walk(at.param, segs, i + 1) : undefined;
  }
}
