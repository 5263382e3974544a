import type { Role } from '../model/applications';
import { OrkesRoleSchema, type Access, type CustomRoleRecord, type OrkesRole } from '../model/authorization';
import { ORKES_ROLES } from './orkes-roles';
import { ROLE_PERMISSIONS, type Permission } from './roles';

// Orkes' custom roles in Baton's permission model: a custom role names permissions in Orkes'
// ACCESS_RESOURCE form (READ_WORKFLOW_DEF); each amounts to the route permissions below. Only the
// resource types whose routes Baton can tell apart are offered; route permissions are per kind,
// not per resource (grants narrow a resource down).

const ACCESS_BY_TYPE = {
  WORKFLOW_DEF: {
    CREATE: ['definitions:write'],
    READ: ['definitions:read'],
    UPDATE: ['definitions:write'],
    DELETE: ['definitions:write'],
    EXECUTE: ['executions:start'],
  },
  TASK_DEF: {
    CREATE: ['definitions:write'],
    READ: ['definitions:read'],
    UPDATE: ['definitions:write'],
    DELETE: ['definitions:write'],
    EXECUTE: ['tasks:poll', 'tasks:update', 'queues:read'],
  },
  WORKFLOW: {
    CREATE: ['executions:start'],
    READ: ['executions:read'],
    UPDATE: ['executions:manage'],
    DELETE: ['executions:manage'],
    EXECUTE: ['executions:start'],
  },
  TASK_ID: {
    READ: ['executions:read'],
    UPDATE: ['tasks:update'],
    EXECUTE: ['tasks:update'],
  },
} as const satisfies Record<string, Partial<Record<Access, readonly Permission[]>>>;

type ResourceType = keyof typeof ACCESS_BY_TYPE;

/** Every permission name a custom role may hold, with the route permissions it amounts to. */
export const ROLE_PERMISSION_NAMES: ReadonlyMap<string, readonly Permission[]> = new Map(
  Object.entries(ACCESS_BY_TYPE).flatMap(([type, byAccess]) =>
    Object.entries(byAccess).map(([access, perms]): [string, readonly Permission[]] => [`${access}_${type}`, perms]),
  ),
);

/** GET /api/roles/permissions: the permission names by resource type. */
export function permissionsByResource(): Record<ResourceType, string[]> {
  return Object.fromEntries(
    Object.entries(ACCESS_BY_TYPE).map(([type, byAccess]) => [type, Object.keys(byAccess).map((access) => `${access}_${type}`)]),
  ) as Record<ResourceType, string[]>;
}

/** The names among `permissions` that are not permission names, in order. */
export const unknownPermissions = (permissions: readonly string[]): string[] => permissions.filter((p) => !ROLE_PERMISSION_NAMES.has(p));

/** Whether `name` is one of the built-in role names (Orkes' or Baton's), which custom roles may not take. */
export const isBuiltInRole = (name: string): boolean => OrkesRoleSchema.safeParse(name).success || Object.hasOwn(ROLE_PERMISSIONS, name);

/** The route permissions the custom roles among `names` amount to (built-in names are left to their own mapping). */
export function customPermissionsOf(names: readonly string[], customs: ReadonlyMap<string, CustomRoleRecord>): Set<Permission> {
  const out = new Set<Permission>();
  for (const n of names) for (const p of customs.get(n)?.permissions ?? []) for (const q of ROLE_PERMISSION_NAMES.get(p) ?? []) out.add(q);
  return out;
}

/** A system role's permissions in the same names: those whose route permissions its Baton roles all hold. */
export function systemRolePermissions(role: OrkesRole): string[] {
  const held = new Set<Permission>(ORKES_ROLES[role].flatMap((r: Role) => [...ROLE_PERMISSIONS[r]]));
  return [...ROLE_PERMISSION_NAMES].filter(([, perms]) => perms.every((p) => held.has(p))).map(([name]) => name);
}
