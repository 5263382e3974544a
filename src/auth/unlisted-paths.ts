import { isConsolePath } from '../api/console-paths';
import type { MatchableRoute, RouteMatch } from '../api/route-matcher';
import type { Permission } from './roles';

// What a request needs when no route of the table names it: the Dapr app channel its own token,
// the console's page and assets nothing (they hold no data), anything else 'admin', so nothing is
// open by omission. Apart from route-permissions.ts so the gate reads it without the route table.

/** What a path no route matches needs. */
export const UNLISTED_PERMISSION: Permission = 'admin';

/** What the request needs: its route's permission, else the console's or the unlisted one. HEAD is GET. */
export const permissionOf = (found: RouteMatch<MatchableRoute> | undefined, method: string | undefined, path: string): Permission =>
  found?.route.permission ?? ((method === 'GET' || method === 'HEAD') && isConsolePath(path) ? 'public' : UNLISTED_PERMISSION);

/**
 * The Dapr app channel shares Baton's port: the sidecar authenticates with the app token
 * (src/runtime/dapr/app-token.ts), not with a user's token. Service invocation from a worker's
 * sidecar arrives on the API paths and needs a user token like any client.
 */
export function isAppChannelPath(path: string): boolean {
  // As express routes the app channel's router: case-insensitively, one trailing slash ignored.
  const p = path.toLowerCase();
  return p === '/healthz' || p === '/healthz/' || p.startsWith('/dapr/') || p.startsWith('/actors/');
}
