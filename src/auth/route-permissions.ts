import { isConsolePath } from '../api/console-paths';
import type { Permission } from './roles';

// THE table of who may call what: every route Baton serves, with the permission it needs. The
// express routers and the hot path (src/api/hot-path.ts) are both behind the one gate that reads it
// (src/auth/request-gate.ts). A path no rule matches needs 'admin', so a route added without a rule
// is closed rather than open (test/unit/auth/route-permissions.test.ts checks every route of the
// route table, src/api/routes.ts, has a rule, and every rule a route). Kept apart from that table:
// the gate runs before express, for the hot path too, and reads permissions grouped by role here.

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteRule {
  method: Method;
  /** Path pattern: literal segments (matched case-insensitively, as express does) and `{param}` segments. */
  path: string;
  permission: Permission;
}

const rules: RouteRule[] = [];
const rule = (method: Method, paths: string | string[], permission: Permission): void => {
  for (const path of Array.isArray(paths) ? paths : [paths]) rules.push({ method, path, permission });
};
/** Conductor's /api/tasks and its singular spelling /api/task (docs/differences.md) serve the same calls. */
const tasks = (p: string): string[] => [`/api/tasks${p}`, `/api/task${p}`];
const workflowDefs = (p: string): string[] => [`/api/metadata/workflowdef${p}`, `/api/metadata/workflow${p}`];
const taskDefs = (p: string): string[] => [`/api/metadata/taskdef${p}`, `/api/metadata/taskdefs${p}`];

// ---- open, and any valid token
rule('GET', ['/health', '/api/health'], 'public');
rule('GET', '/metrics', 'public'); // Prometheus scrapes carry no token; names only, no ids or payloads (docs/operations.md)
rule('POST', '/api/token', 'public');
rule('GET', ['/api/version', '/api-docs', '/api/token/userInfo'], 'authenticated');

// ---- definitions and event handlers
for (const p of ['', '/names-and-versions', '/latest-versions', '/names', '/{name}/versions', '/{name}']) rule('GET', workflowDefs(p), 'definitions:read');
rule('POST', workflowDefs('/validate'), 'definitions:read'); // validates, stores nothing
rule('POST', workflowDefs(''), 'definitions:write');
rule('PUT', workflowDefs(''), 'definitions:write');
rule('DELETE', workflowDefs('/{name}/{version}'), 'definitions:write');
rule('GET', [...taskDefs(''), ...taskDefs('/{name}')], 'definitions:read');
rule('POST', taskDefs(''), 'definitions:write');
rule('PUT', taskDefs(''), 'definitions:write');
rule('DELETE', taskDefs('/{name}'), 'definitions:write');
rule('GET', ['/api/event', '/api/event/execution', '/api/event/execution/{name}', '/api/event/message', '/api/event/message/{event}', '/api/event/{event}'], 'definitions:read');
rule('GET', '/api/event/handler/{name}', 'definitions:read');
rule('POST', '/api/event', 'definitions:write');
// An incoming event may start workflows and complete tasks through its handlers: what publishing to the bus lets a caller do.
rule('POST', '/api/event/handleIncomingEvent', 'executions:start');
rule('PUT', '/api/event', 'definitions:write');
rule('DELETE', '/api/event/{name}', 'definitions:write');
rule('GET', ['/api/schema', '/api/schema/{name}', '/api/schema/{name}/{version}'], 'definitions:read');
rule('POST', '/api/schema', 'definitions:write');
rule('DELETE', ['/api/schema/{name}', '/api/schema/{name}/{version}'], 'definitions:write');

// Tags on definitions and event handlers: reading them is reading definitions, changing them is writing one.
rule('GET', ['/api/metadata/tags', '/api/metadata/workflow/{name}/tags', '/api/metadata/task/{taskName}/tags', '/api/event/{name}/tags'], 'definitions:read');
for (const m of ['PUT', 'POST', 'DELETE'] as const) rule(m, ['/api/metadata/workflow/{name}/tags', '/api/metadata/task/{taskName}/tags'], 'definitions:write');
rule('PUT', '/api/event/{name}/tags', 'definitions:write');
rule('DELETE', '/api/event/{name}/tags', 'definitions:write');

// ---- secrets: names and tags are metadata; a value is read by admins only (tasks use it without anyone reading it).
rule('GET', ['/api/secrets', '/api/secrets-v2', '/api/secrets/{key}/exists', '/api/secrets/{key}/tags'], 'definitions:read');
rule('POST', '/api/secrets', 'definitions:read'); // lists names, changes nothing
rule('PUT', ['/api/secrets/{key}', '/api/secrets/{key}/tags'], 'definitions:write');
rule('DELETE', ['/api/secrets/{key}', '/api/secrets/{key}/tags'], 'definitions:write');
rule('GET', '/api/secrets/{key}', 'admin');

// ---- executions
rule('POST', ['/api/workflow', '/api/workflow/{name}', '/api/workflow/execute/{name}/{version}', '/api/workflow/test'], 'executions:start');
rule(
  'GET',
  [
    '/api/workflow/search',
    '/api/workflow/search-v2',
    '/api/workflow/search-by-tasks',
    '/api/workflow/search-by-tasks-v2',
    '/api/workflow/running/{name}',
    '/api/workflow/running/{name}/correlated/{correlationId}',
    '/api/workflow/{name}/correlated/{correlationId}',
    '/api/workflow/{workflowId}',
    '/api/workflow/{workflowId}/status',
    '/api/workflow/{workflowId}/tasks',
    '/api/workflow/externalstoragelocation',
    '/api/workflow/external-storage-location',
    ...tasks('/search'),
    ...tasks('/search-v2'),
    ...tasks('/externalstoragelocation'),
    ...tasks('/external-storage-location'),
    ...tasks('/{taskId}'),
    ...tasks('/{taskId}/log'),
    '/apitasks/{taskId}',
  ],
  'executions:read',
);
rule('POST', '/api/workflow/{name}/correlated', 'executions:read'); // a lookup with the ids in the body
rule('POST', '/api/workflow/correlated/batch', 'executions:read'); // a lookup with the ids in the body
rule('POST', ['/api/workflow/{workflowId}/variables', '/api/workflow/{workflowId}/state'], 'executions:manage');
rule('DELETE', ['/api/workflow/{workflowId}', '/api/workflow/{workflowId}/remove', '/api/workflow/{workflowId}/terminate-remove'], 'executions:manage');
rule('PUT', ['/api/workflow/{workflowId}/pause', '/api/workflow/{workflowId}/resume', '/api/workflow/decide/{workflowId}', '/api/workflow/skiptask', '/api/workflow/{workflowId}/skiptask/{taskReferenceName}'], 'executions:manage');
rule('POST', ['/api/workflow/{workflowId}/rerun', '/api/workflow/{workflowId}/restart', '/api/workflow/{workflowId}/retry', '/api/workflow/{workflowId}/resetcallbacks'], 'executions:manage');
rule('PUT', ['/api/workflow/bulk/pause', '/api/workflow/bulk/resume'], 'executions:manage');
rule('POST', ['/api/workflow/bulk/restart', '/api/workflow/bulk/retry', '/api/workflow/bulk/terminate'], 'executions:manage');
rule('DELETE', ['/api/workflow/bulk/remove', '/api/workflow/bulk/terminate-remove'], 'executions:manage');

// ---- schedules: a schedule starts workflows, so saving one takes what a start takes
const scheduler = (p: string): string => `/api/scheduler${p}`;
rule('GET', ['/schedules', '/schedules/tags', '/schedules/{name}', '/schedules/{name}/tags', '/nextFewSchedules'].map(scheduler), 'definitions:read');
rule('GET', scheduler('/search/executions'), 'executions:read');
rule('POST', scheduler('/schedules'), 'executions:start');
rule('PUT', scheduler('/schedules/{name}/tags'), 'executions:start');
rule('DELETE', [scheduler('/schedules/{name}'), scheduler('/schedules/{name}/tags')], 'executions:manage');
for (const m of ['GET', 'PUT'] as const) rule(m, [scheduler('/schedules/{name}/pause'), scheduler('/schedules/{name}/resume')], 'executions:manage');
for (const m of ['GET', 'PUT'] as const) rule(m, [scheduler('/admin/pause'), scheduler('/admin/resume')], 'admin');
rule('GET', scheduler('/admin/requeue'), 'admin');

// ---- workers
rule('GET', [...tasks('/poll/batch/{taskType}'), ...tasks('/poll/{taskType}')], 'tasks:poll');
rule('POST', tasks('/update-v2'), 'tasks:poll'); // answers the next task of the type: a poll
rule('POST', tasks('/{taskId}/ack'), 'tasks:poll');
rule(
  'POST',
  [
    ...tasks(''),
    ...tasks('/{taskId}/log'),
    ...tasks('/{workflowId}/{taskRefName}/{status}'),
    ...tasks('/{workflowId}/{taskRefName}/{status}/sync'),
    ...tasks('/{workflowId}/{status}/signal'),
    ...tasks('/{workflowId}/{status}/signal/sync'),
    '/api/queue/update/{workflowId}/task/{taskId}/{status}',
    '/api/queue/update/{workflowId}/{taskRefName}/{status}',
  ],
  'tasks:update',
);
rule('GET', [...tasks('/queue/all'), ...tasks('/queue/all/verbose'), ...tasks('/queue/sizes'), ...tasks('/queue/size'), ...tasks('/queue/polldata'), ...tasks('/queue/polldata/all')], 'queues:read');

// ---- administration
rule('POST', tasks('/queue/requeue/{taskType}'), 'admin');
rule('GET', ['/api/admin/config', '/api/admin/task/{tasktype}'], 'admin');
rule('POST', ['/api/admin/consistency/verifyAndRepair/{workflowId}', '/api/admin/sweep/requeue/{workflowId}'], 'admin');
rule('GET', ['/api/applications', '/api/applications/{id}', '/api/applications/{id}/accessKeys', '/api/applications/key/{accessKeyId}', '/api/applications/{id}/tags'], 'admin');
rule('POST', ['/api/applications', '/api/applications/{id}/accessKeys', '/api/applications/{applicationId}/accessKeys/{keyId}/status', '/api/applications/{applicationId}/roles/{role}'], 'admin');
rule('PUT', ['/api/applications/{id}', '/api/applications/{applicationId}/roles/{role}', '/api/applications/{id}/tags'], 'admin');
rule('DELETE', ['/api/applications/{id}', '/api/applications/{applicationId}/accessKeys/{keyId}', '/api/applications/{applicationId}/roles/{role}', '/api/applications/{id}/tags'], 'admin');

// Orkes' users, groups and grants: admins manage who may do what.
rule('GET', ['/api/users', '/api/users/{id}', '/api/users/{userId}/permissions', '/api/users/{userId}/checkPermissions'], 'admin');
rule('PUT', '/api/users/{id}', 'admin');
rule('DELETE', '/api/users/{id}', 'admin');
rule('GET', ['/api/groups', '/api/groups/{id}', '/api/groups/{id}/users', '/api/groups/{groupId}/permissions'], 'admin');
rule('PUT', '/api/groups/{id}', 'admin');
rule('DELETE', ['/api/groups/{id}', '/api/groups/{groupId}/users', '/api/groups/{groupId}/users/{userId}'], 'admin');
rule('POST', ['/api/groups/{groupId}/users', '/api/groups/{groupId}/users/{userId}'], 'admin');
rule('GET', '/api/auth/authorization/{type}/{id}', 'admin');
rule('POST', '/api/auth/authorization', 'admin');
rule('DELETE', '/api/auth/authorization', 'admin');

export const ROUTE_PERMISSIONS: readonly RouteRule[] = rules;

/** What a path no rule matches needs. */
export const UNLISTED_PERMISSION: Permission = 'admin';

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

interface Node {
  literals: Map<string, Node>;
  param?: Node;
  permission?: Permission;
  /** The first rule declared for this node (its path names the parameters). */
  rule?: RouteRule;
}
const node = (): Node => ({ literals: new Map() });

function segmentsOf(path: string): string[] {
  const parts = path.split('/');
  parts.shift(); // before the leading slash
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop(); // express ignores one trailing slash
  return parts;
}

/** Matches request paths against the rules: literal segments win over parameters, as in express's registration order here. */
export class RoutePermissions {
  private readonly roots = new Map<Method, Node>();

  constructor(table: readonly RouteRule[] = ROUTE_PERMISSIONS) {
    for (const r of table) {
      let at = this.roots.get(r.method) ?? node();
      this.roots.set(r.method, at);
      for (const seg of segmentsOf(r.path)) {
        if (seg.startsWith('{') && seg.endsWith('}')) at = at.param ??= node();
        else {
          const key = seg.toLowerCase();
          const next = at.literals.get(key) ?? node();
          at.literals.set(key, next);
          at = next;
        }
      }
      if (at.permission !== undefined && at.permission !== r.permission) throw new Error(`conflicting permissions for ${r.method} ${r.path}`);
      at.permission = r.permission;
      at.rule ??= r;
    }
  }

  /** The permission a request needs; `path` is the URL path without its query. HEAD is GET. */
  of(method: string | undefined, path: string): Permission {
    // The console's page and assets hold no data (it signs in with a key, then calls the API): open to all.
    return this.rule(method, path) ?? ((method === 'GET' || method === 'HEAD') && isConsolePath(path) ? 'public' : UNLISTED_PERMISSION);
  }

  /** The permission of the rule matching the request, if one does. */
  rule(method: string | undefined, path: string): Permission | undefined {
    return this.matching(method, path)?.permission;
  }

  /** The rule matching the request and the path's parameter values in order (still percent-encoded). */
  template(method: string | undefined, path: string): { rule: RouteRule; params: string[] } | undefined {
    const segs = segmentsOf(path);
    const rule = this.matching(method, path)?.rule;
    if (!rule) return undefined;
    const params = segmentsOf(rule.path).flatMap((t, i) => (t.startsWith('{') && t.endsWith('}') ? [segs[i]!] : []));
    return { rule, params };
  }

  private matching(method: string | undefined, path: string): Node | undefined {
    const root = this.roots.get((method === 'HEAD' ? 'GET' : method) as Method);
    return root ? this.match(root, segmentsOf(path), 0) : undefined;
  }

  private match(at: Node, segs: string[], i: number): Node | undefined {
    if (i === segs.length) return at.permission !== undefined ? at : undefined;
    const seg = segs[i]!;
    const lit = at.literals.get(seg.toLowerCase());
    const viaLiteral = lit && this.match(lit, segs, i + 1);
    if (viaLiteral) return viaLiteral;
    return at.param && seg !== '' ? this.match(at.param, segs, i + 1) : undefined;
  }
}
