import { paramValuesInOrder, RouteMatcher, type MatchableRoute, type RouteMatch } from '../api/route-matcher';
import { allRouteTemplates } from '../api/routes';
import type { Permission } from './roles';
import { permissionOf } from './unlisted-paths';

// Who may call what, read from the route table (src/api/routes.ts), where each route declares the
// permission it needs; paths no route names are judged in unlisted-paths.ts.

export { isAppChannelPath, permissionOf, UNLISTED_PERMISSION } from './unlisted-paths';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteRule extends MatchableRoute {
  method: Method;
}

/** Every route's (method, path, permission), in table order. */
export const ROUTE_PERMISSIONS: readonly RouteRule[] = allRouteTemplates().map(({ method, path, permission }) => ({
  method: method.toUpperCase() as Method,
  path,
  permission,
}));

/** The routes a request may name, each with its permission: the whole table unless given others. */
export class RoutePermissions<R extends MatchableRoute = RouteRule> {
  private readonly matcher: RouteMatcher<R>;

  constructor(routes: readonly R[] = ROUTE_PERMISSIONS as readonly MatchableRoute[] as readonly R[]) {
    this.matcher = new RouteMatcher(routes);
  }

  /** The route a request names and its parameters; `path` is the URL path without its query. */
  match(method: string | undefined, path: string): RouteMatch<R> | undefined {
    return this.matcher.match(method, path);
  }

  /** The permission a request needs. HEAD is GET. */
  of(method: string | undefined, path: string): Permission {
    return permissionOf(this.match(method, path), method, path);
  }

  /** The permission of the route matching the request, if one does. */
  rule(method: string | undefined, path: string): Permission | undefined {
    return this.match(method, path)?.route.permission;
  }

  /** The route matching the request and the path's parameter values in the route's order (still percent-encoded). */
  template(method: string | undefined, path: string): { rule: R; params: string[] } | undefined {
    const found = this.match(method, path);
    return found && { rule: found.route, params: paramValuesInOrder(found) };
  }
}
