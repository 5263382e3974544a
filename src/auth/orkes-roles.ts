import type { Role } from '../model/applications';
import type { OrkesRole } from '../model/authorization';

// Orkes' role names in Baton's roles (docs/security.md has the table). Orkes' USER creates and runs
// its own definitions; APPLICATION_MANAGER and APPLICATION_CREATOR manage applications, which Baton
// leaves to ADMIN, so they read only.
export const ORKES_ROLES: Readonly<Record<OrkesRole, readonly Role[]>> = {
  ADMIN: ['ADMIN'],
  USER: ['METADATA_MANAGER', 'WORKFLOW_MANAGER'],
  METADATA_MANAGER: ['METADATA_MANAGER'],
  WORKFLOW_MANAGER: ['WORKFLOW_MANAGER'],
  WORKER: ['WORKER'],
  UNRESTRICTED_WORKER: ['WORKER'],
  METADATA_API: ['METADATA_MANAGER'],
  APPLICATION_MANAGER: ['READ_ONLY'],
  APPLICATION_CREATOR: ['READ_ONLY'],
  USER_READ_ONLY: ['READ_ONLY'],
  READ_ONLY: ['READ_ONLY'],
};

/** The Baton roles that a list of role names amounts to (custom roles' names count for nothing here). */
export function batonRolesOf(roles: readonly string[]): Role[] {
  return [...new Set(roles.flatMap((r) => (Object.hasOwn(ORKES_ROLES, r) ? ORKES_ROLES[r as OrkesRole] : [])))];
}
