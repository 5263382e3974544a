import type { Role } from '../model/applications';
import { OrkesRoleSchema, type Access, type GrantRecord, type SubjectRef } from '../model/authorization';
import { ORKES_ROLES } from './orkes-roles';

// Whether a caller may act on a target, given the grants on that target. A target nobody holds a
// grant on stays open to the caller's roles (as before grants existed); once one grant names it,
// only subjects granted the access may (Orkes shares a resource the same way). ADMIN passes always.

/** The subjects a caller acts as: its user, that user's groups, every Orkes role name whose roles it holds all of, and the custom roles it holds. */
export function subjectsOf(userId: string, groups: readonly string[], roles: readonly Role[], customRoles: readonly string[] = []): SubjectRef[] {
  const roleNames = OrkesRoleSchema.options.filter((name) => ORKES_ROLES[name].every((r) => roles.includes(r)));
  return [
    { type: 'USER', id: userId },
    ...groups.map((id): SubjectRef => ({ type: 'GROUP', id })),
    ...[...roleNames, ...customRoles].map((id): SubjectRef => ({ type: 'ROLE', id })),
  ];
}

export function grantAllows(grants: readonly GrantRecord[], subjects: readonly SubjectRef[], roles: readonly Role[], access: Access): boolean {
  if (roles.includes('ADMIN') || grants.length === 0) return true;
  return grants.some((g) => g.access.includes(access) && subjects.some((s) => s.type === g.subject.type && s.id === g.subject.id));
}

/** Every access, as GET /api/users/{id}/checkPermissions answers it. */
export function accessMap(grants: readonly GrantRecord[], subjects: readonly SubjectRef[], roles: readonly Role[]): Record<Access, boolean> {
  const all: Access[] = ['CREATE', 'READ', 'UPDATE', 'EXECUTE', 'DELETE'];
  return Object.fromEntries(all.map((a) => [a, grantAllows(grants, subjects, roles, a)])) as Record<Access, boolean>;
}
