import type { Access, TargetRef, TargetType } from '../model/authorization';
import { paramValuesInOrder, type MatchableRoute, type RouteMatch } from '../api/route-matcher';

// Which target and access a request names in its path, for the target types whose grants the gate
// enforces: routes of the permission table whose first path parameter names the target. A start by
// POST /api/workflow names its definition in the body: that one is checked where the body is read
// (worker-calls.ts), through the same decision.

export interface ResourceNeed {
  target: TargetRef;
  access: Access;
}

const needs = new Map<string, { type: TargetType; access: Access }>();
const templates: string[] = [];
// Routes that share a node of the matcher may name their parameters differently: compare shapes.
const keyOf = (method: string, path: string): string => `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;
const on = (method: Method, paths: string[], type: TargetType, access: Access): void => {
  for (const p of paths) {
    needs.set(keyOf(method, p), { type, access });
    templates.push(`${method} ${p}`);
  }
};
const workflowDefs = (p: string): string[] => [`/api/metadata/workflowdef${p}`, `/api/metadata/workflow${p}`];
const taskDefs = (p: string): string[] => [`/api/metadata/taskdef${p}`, `/api/metadata/taskdefs${p}`];
const tasks = (p: string): string[] => [`/api/tasks${p}`, `/api/task${p}`];

on('POST', ['/api/workflow/{name}', '/api/workflow/execute/{name}/{version}'], 'WORKFLOW_DEF', 'EXECUTE');
on('GET', [...workflowDefs('/{name}'), ...workflowDefs('/{name}/versions'), '/api/metadata/workflow/{name}/tags'], 'WORKFLOW_DEF', 'READ');
on('DELETE', workflowDefs('/{name}/{version}'), 'WORKFLOW_DEF', 'DELETE');
for (const m of ['PUT', 'POST', 'DELETE'] as const) on(m, ['/api/metadata/workflow/{name}/tags'], 'WORKFLOW_DEF', 'UPDATE');
on('GET', [...tasks('/poll/{taskType}'), ...tasks('/poll/batch/{taskType}')], 'TASK_DEF', 'EXECUTE');
on('GET', [...taskDefs('/{name}'), '/api/metadata/task/{taskName}/tags'], 'TASK_DEF', 'READ');
on('DELETE', taskDefs('/{name}'), 'TASK_DEF', 'DELETE');
for (const m of ['PUT', 'POST', 'DELETE'] as const) on(m, ['/api/metadata/task/{taskName}/tags'], 'TASK_DEF', 'UPDATE');
on('GET', ['/api/scheduler/schedules/{name}', '/api/scheduler/schedules/{name}/tags'], 'WORKFLOW_SCHEDULE', 'READ');
on('DELETE', ['/api/scheduler/schedules/{name}'], 'WORKFLOW_SCHEDULE', 'DELETE');
for (const m of ['GET', 'PUT'] as const)
  on(m, ['/api/scheduler/schedules/{name}/pause', '/api/scheduler/schedules/{name}/resume'], 'WORKFLOW_SCHEDULE', 'UPDATE');
on('GET', ['/api/secrets/{key}', '/api/secrets/{key}/exists', '/api/secrets/{key}/tags'], 'SECRET_NAME', 'READ');
on('PUT', ['/api/secrets/{key}', '/api/secrets/{key}/tags'], 'SECRET_NAME', 'UPDATE');
on('DELETE', ['/api/secrets/{key}', '/api/secrets/{key}/tags'], 'SECRET_NAME', 'DELETE');

/** The target types whose grants are enforced (the others are stored and listed only). */
export const ENFORCED_TARGET_TYPES: ReadonlySet<TargetType> = new Set([...needs.values()].map((n) => n.type));

/** Every `METHOD /template` with a resource need (a unit test checks each is a route of the permission table). */
export const RESOURCE_ROUTES: readonly string[] = templates;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a request needs on a target, when the route the gate matched names one in its path. */
export function resourceNeedOf(method: string | undefined, found: RouteMatch<MatchableRoute> | undefined): ResourceNeed | undefined {
  const m = (method === 'HEAD' ? 'GET' : method) as Method;
  if (!found) return undefined;
  const need = needs.get(keyOf(m, found.route.path));
  const raw = paramValuesInOrder(found)[0];
  if (!need || raw === undefined) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return undefined; // the request target reader refuses bad escapes before the gate
  }
  return { target: { type: need.type, id }, access: need.access };
}
