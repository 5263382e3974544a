import type { Role } from '../model/applications';

// What each role may do. Routes name a permission (route-permissions.ts); roles are sets of them.

export const PERMISSIONS = [
  /** No token needed: health, and asking for a token. */
  'public',
  /** Any valid token: version, the OpenAPI document, who am I. */
  'authenticated',
  'definitions:read',
  'definitions:write',
  'executions:read',
  'executions:start',
  /** Terminate, pause, resume, retry, rerun, restart, skip, remove, bulk operations. */
  'executions:manage',
  /** Poll (and update-v2, which hands out the next task). */
  'tasks:poll',
  /** Task results, logs, completion by reference, signals. */
  'tasks:update',
  /** Queue sizes and poll data. */
  'queues:read',
  /** /api/admin, re-queueing, applications and their keys. */
  'admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const READ: readonly Permission[] = ['authenticated', 'definitions:read', 'executions:read', 'queues:read'];

export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  ADMIN: new Set(PERMISSIONS),
  METADATA_MANAGER: new Set([...READ, 'definitions:write']),
  WORKFLOW_MANAGER: new Set([...READ, 'executions:start', 'executions:manage', 'tasks:update']),
  // Conductor workers poll and update; queue sizes let them scale. Nothing else.
  WORKER: new Set(['authenticated', 'tasks:poll', 'tasks:update', 'queues:read']),
  READ_ONLY: new Set(READ),
};

/** Whether a valid token whose application holds `roles` may use `permission`. */
export function allows(roles: Iterable<Role>, permission: Permission): boolean {
  if (permission === 'public' || permission === 'authenticated') return true;
  for (const role of roles) if (ROLE_PERMISSIONS[role].has(permission)) return true;
  return false;
}
