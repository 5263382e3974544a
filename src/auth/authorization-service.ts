import type { Role } from '../model/applications';
import {
  OrkesRoleSchema,
  type Access,
  type AuthorizationRequest,
  type CustomRoleRecord,
  type GrantRecord,
  type GroupRecord,
  type SubjectRef,
  type TargetRef,
  type UserRecord,
} from '../model/authorization';
import { checkRecordCount, DEFAULT_RECORD_CAPS } from '../services/definition-limits';
import { Errors } from '../model/named-errors';
import type { AuthorizationStore } from '../store/ports';
import { customPermissionsOf, isBuiltInRole, unknownPermissions } from './custom-roles';
import { accessMap, grantAllows, subjectsOf } from './grant-decision';
import { batonRolesOf } from './orkes-roles';
import type { Permission } from './roles';

// Orkes' users, groups, custom roles and grants (/api/users, /api/groups, /api/roles,
// /api/auth/authorization) and the grant and custom-role checks of the gate. Baton signs keys in, not
// users: a key acts as the user `app:<applicationId>` (the id /api/token/userInfo answers), with its
// application's roles, that user's groups, and the custom roles the user and its groups hold.

/** The user id a key of this application acts as. */
export const applicationUserId = (applicationId: string): string => `app:${applicationId}`;

/** What the gate reads per request: kept in memory, reloaded after cacheMs, at once after a change here. */
interface Snapshot {
  grants: Map<string, GrantRecord[]>;
  groupsOf: Map<string, string[]>;
  /** The custom roles each user holds, its own and its groups'. */
  customRolesOf: Map<string, string[]>;
  customs: Map<string, CustomRoleRecord>;
  at: number;
}

const targetKey = (t: TargetRef): string => `${t.type}\u0000${t.id}`;

export type UpsertUser = { name?: string; roles?: string[]; groups?: string[] };
export type UpsertGroup = { description?: string; roles?: string[]; defaultAccess?: Partial<Record<string, Access[]>> };

export class AuthorizationService {
  private snapshot: Snapshot | undefined;
  private loading: Promise<Snapshot> | undefined;
  private generation = 0;

  constructor(
    private readonly store: AuthorizationStore,
    private readonly opts: { cacheMs: number; maxRecords?: number; now?: () => number },
  ) {}

  private get now(): number {
    return (this.opts.now ?? Date.now)();
  }
  private get cap(): number {
    return this.opts.maxRecords ?? DEFAULT_RECORD_CAPS.users;
  }

  // ---- users

  listUsers(): Promise<UserRecord[]> {
    return this.store.listUsers();
  }

  async getUser(id: string): Promise<UserRecord> {
    const u = await this.store.getUser(id);
    if (!u) throw Errors.USER_NOT_FOUND(id);
    return u;
  }

  async upsertUser(id: string, req: UpsertUser): Promise<UserRecord> {
    const old = await this.store.getUser(id);
    if (!old) checkRecordCount('users', (await this.store.listUsers()).length, 1, this.cap);
    const groups = req.groups ?? old?.groups ?? [];
    for (const g of groups) if (!(await this.store.getGroup(g))) throw Errors.GROUP_UNKNOWN(g);
    if (req.roles) await this.checkRoles(req.roles);
    const t = this.now;
    const user: UserRecord = {
      id,
      name: req.name ?? old?.name ?? id,
      roles: req.roles ?? old?.roles ?? [],
      groups: [...new Set(groups)],
      createTime: old?.createTime ?? t,
      updateTime: t,
    };
    await this.store.putUser(user);
    this.invalidate();
    return user;
  }

  async deleteUser(id: string): Promise<void> {
    await this.getUser(id);
    await this.dropGrantsOf({ type: 'USER', id });
    await this.store.deleteUser(id);
    this.invalidate();
  }

  // ---- groups

  listGroups(): Promise<GroupRecord[]> {
    return this.store.listGroups();
  }

  async getGroup(id: string): Promise<GroupRecord> {
    const g = await this.store.getGroup(id);
    if (!g) throw Errors.GROUP_NOT_FOUND(id);
    return g;
  }

  async upsertGroup(id: string, req: UpsertGroup): Promise<GroupRecord> {
    const old = await this.store.getGroup(id);
    if (!old) checkRecordCount('groups', (await this.store.listGroups()).length, 1, this.cap);
    if (req.roles) await this.checkRoles(req.roles);
    const t = this.now;
    const group: GroupRecord = {
      id,
      description: req.description ?? old?.description ?? '',
      roles: req.roles ?? old?.roles ?? [],
      defaultAccess: (req.defaultAccess as Record<string, Access[]> | undefined) ?? old?.defaultAccess ?? {},
      createTime: old?.createTime ?? t,
      updateTime: t,
    };
    await this.store.putGroup(group);
    this.invalidate();
    return group;
  }

  async deleteGroup(id: string): Promise<void> {
    await this.getGroup(id);
    for (const u of await this.store.listUsers())
      if (u.groups.includes(id)) await this.store.putUser({ ...u, groups: u.groups.filter((g) => g !== id), updateTime: this.now });
    await this.dropGrantsOf({ type: 'GROUP', id });
    await this.store.deleteGroup(id);
    this.invalidate();
  }

  async usersIn(groupId: string): Promise<UserRecord[]> {
    await this.getGroup(groupId);
    return (await this.store.listUsers()).filter((u) => u.groups.includes(groupId));
  }

  async addUsers(groupId: string, userIds: string[]): Promise<void> {
    await this.getGroup(groupId);
    const users = await Promise.all(userIds.map((id) => this.getUser(id)));
    for (const u of users) if (!u.groups.includes(groupId)) await this.store.putUser({ ...u, groups: [...u.groups, groupId], updateTime: this.now });
    this.invalidate();
  }

  async removeUsers(groupId: string, userIds: string[]): Promise<void> {
    await this.getGroup(groupId);
    for (const id of userIds) {
      const u = await this.store.getUser(id);
      if (u?.groups.includes(groupId)) await this.store.putUser({ ...u, groups: u.groups.filter((g) => g !== groupId), updateTime: this.now });
    }
    this.invalidate();
  }

  // ---- custom roles

  listRoles(): Promise<CustomRoleRecord[]> {
    return this.store.listRoles();
  }

  async getRole(name: string): Promise<CustomRoleRecord> {
    const r = await this.store.getRole(name);
    if (!r) throw Errors.ROLE_NOT_FOUND(name);
    return r;
  }

  /** POST /api/roles: a new custom role; its name may not be taken nor built in. */
  async createRole(name: string, permissions: string[]): Promise<CustomRoleRecord> {
    if (isBuiltInRole(name)) throw Errors.ROLE_BUILT_IN(name);
    if (await this.store.getRole(name)) throw Errors.ROLE_EXISTS(name);
    checkRecordCount('roles', (await this.store.listRoles()).length, 1, this.cap);
    return this.putRole({ name, permissions, createTime: this.now, updateTime: this.now });
  }

  /** PUT /api/roles/{name}: replaces an existing custom role's permissions. */
  async updateRole(name: string, permissions: string[]): Promise<CustomRoleRecord> {
    if (isBuiltInRole(name)) throw Errors.ROLE_BUILT_IN(name);
    const old = await this.getRole(name);
    return this.putRole({ ...old, permissions, updateTime: this.now });
  }

  /** Deletes a custom role, takes it from the users and groups holding it, and drops its grants. */
  async deleteRole(name: string): Promise<void> {
    if (isBuiltInRole(name)) throw Errors.ROLE_BUILT_IN(name);
    await this.getRole(name);
    for (const u of await this.store.listUsers())
      if (u.roles.includes(name)) await this.store.putUser({ ...u, roles: u.roles.filter((r) => r !== name), updateTime: this.now });
    for (const g of await this.store.listGroups())
      if (g.roles.includes(name)) await this.store.putGroup({ ...g, roles: g.roles.filter((r) => r !== name), updateTime: this.now });
    await this.dropGrantsOf({ type: 'ROLE', id: name });
    await this.store.deleteRole(name);
    this.invalidate();
  }

  /** Gives a user a custom role (POST /api/applications/{id}/roles/{role} for the application's user); the user is created if need be. */
  async holdRole(userId: string, role: string): Promise<void> {
    await this.checkRoles([role]);
    const old = await this.store.getUser(userId);
    if (!old) await this.upsertUser(userId, { roles: [role] });
    else if (!old.roles.includes(role)) await this.upsertUser(userId, { roles: [...old.roles, role] });
  }

  /** Takes a custom role from a user, when it holds it. */
  async dropRole(userId: string, role: string): Promise<void> {
    const old = await this.store.getUser(userId);
    if (old?.roles.includes(role)) await this.upsertUser(userId, { roles: old.roles.filter((r) => r !== role) });
  }

  private async putRole(role: CustomRoleRecord): Promise<CustomRoleRecord> {
    const unknown = unknownPermissions(role.permissions);
    if (unknown.length > 0) throw Errors.ROLE_PERMISSION_UNKNOWN(unknown.join(', '));
    const r = { ...role, permissions: [...new Set(role.permissions)] };
    await this.store.putRole(r);
    this.invalidate();
    return r;
  }

  // ---- grants

  async grant(req: AuthorizationRequest): Promise<void> {
    await this.checkSubject(req.subject);
    const existing = (await this.store.grantsOn(req.target)).find((g) => sameSubject(g.subject, req.subject));
    if (!existing) checkRecordCount('grants', (await this.store.listGrants()).length, 1, this.cap);
    const access = [...new Set([...(existing?.access ?? []), ...req.access])];
    await this.store.putGrant({ subject: req.subject, target: req.target, access });
    this.invalidate();
  }

  async revoke(req: AuthorizationRequest): Promise<void> {
    const existing = (await this.store.grantsOn(req.target)).find((g) => sameSubject(g.subject, req.subject));
    if (!existing) return;
    const access = existing.access.filter((a) => !req.access.includes(a));
    if (access.length === 0) await this.store.deleteGrant(req.target, req.subject);
    else await this.store.putGrant({ ...existing, access });
    this.invalidate();
  }

  /** GET /api/auth/authorization/{type}/{id}: the subjects holding each access on the target. */
  async grantsOn(target: TargetRef): Promise<Partial<Record<Access, SubjectRef[]>>> {
    const out: Partial<Record<Access, SubjectRef[]>> = {};
    for (const g of await this.store.grantsOn(target)) for (const a of g.access) (out[a] ??= []).push(g.subject);
    return out;
  }

  /** What a user or group was granted, as GrantedAccessResponse. */
  async grantedTo(subject: SubjectRef): Promise<{ grantedAccess: Array<{ target: TargetRef; access: Access[] }> }> {
    if (subject.type === 'USER') await this.getUser(subject.id);
    if (subject.type === 'GROUP') await this.getGroup(subject.id);
    const grants = (await this.store.listGrants()).filter((g) => sameSubject(g.subject, subject));
    return { grantedAccess: grants.map((g) => ({ target: g.target, access: g.access })) };
  }

  /** GET /api/users/{id}/checkPermissions: each access the user has on the target, by its grants, groups and roles. */
  async check(userId: string, target: TargetRef): Promise<Record<Access, boolean>> {
    const user = await this.getUser(userId);
    const roles = batonRolesOf(user.roles);
    const groups = (await this.store.listGroups()).filter((g) => user.groups.includes(g.id));
    const customs = customNamesOf([user.roles, ...groups.map((g) => g.roles)]);
    return accessMap(await this.store.grantsOn(target), subjectsOf(user.id, user.groups, roles, customs), roles);
  }

  // ---- the gate's check

  /** Whether a key of `applicationId` with `roles` may have `access` on `target`; synchronous while the snapshot is fresh. */
  allows(applicationId: string, roles: readonly Role[], target: TargetRef, access: Access): boolean | Promise<boolean> {
    if (roles.includes('ADMIN')) return true;
    const decide = (s: Snapshot): boolean => {
      const grants = s.grants.get(targetKey(target)) ?? [];
      const user = applicationUserId(applicationId);
      return grantAllows(grants, subjectsOf(user, s.groupsOf.get(user) ?? [], roles, s.customRolesOf.get(user) ?? []), roles, access);
    };
    return this.withSnapshot(decide);
  }

  /** Whether the custom roles a key of `applicationId` holds (through its user and that user's groups) give `permission`. */
  permits(applicationId: string, permission: Permission): boolean | Promise<boolean> {
    return this.withSnapshot((s) => customPermissionsOf(s.customRolesOf.get(applicationUserId(applicationId)) ?? [], s.customs).has(permission));
  }

  private withSnapshot<T>(decide: (s: Snapshot) => T): T | Promise<T> {
    const s = this.snapshot;
    if (s && this.now - s.at < this.opts.cacheMs) return decide(s);
    return this.load().then(decide);
  }

  /** Forgets the snapshot: called on every change made through this replica. */
  invalidate(): void {
    this.generation++;
    this.snapshot = undefined;
  }

  private load(): Promise<Snapshot> {
    if (this.loading) return this.loading;
    const generation = this.generation;
    const loading = (async () => {
      const [grants, users, groups, roles] = await Promise.all([
        this.store.listGrants(),
        this.store.listUsers(),
        this.store.listGroups(),
        this.store.listRoles(),
      ]);
      const groupRoles = new Map(groups.map((g) => [g.id, g.roles]));
      const byTarget = new Map<string, GrantRecord[]>();
      for (const g of grants) {
        const k = targetKey(g.target);
        byTarget.set(k, [...(byTarget.get(k) ?? []), g]);
      }
      const s: Snapshot = {
        grants: byTarget,
        groupsOf: new Map(users.map((u) => [u.id, u.groups])),
        customRolesOf: new Map(users.map((u) => [u.id, customNamesOf([u.roles, ...u.groups.map((g) => groupRoles.get(g) ?? [])])])),
        customs: new Map(roles.map((r) => [r.name, r])),
        at: this.now,
      };
      // A change made while this load ran may not be in it: keep only loads that started after the last change.
      if (generation === this.generation && this.opts.cacheMs > 0) this.snapshot = s;
      return s;
    })().finally(() => {
      if (this.loading === loading) this.loading = undefined;
    });
    this.loading = loading;
    return loading;
  }

  private async checkSubject(s: SubjectRef): Promise<void> {
    if (s.type === 'USER' && !(await this.store.getUser(s.id)) && !s.id.startsWith('app:')) throw Errors.USER_NOT_FOUND(s.id);
    if (s.type === 'GROUP' && !(await this.store.getGroup(s.id))) throw Errors.GROUP_NOT_FOUND(s.id);
    if (s.type === 'ROLE') await this.checkRoles([s.id]);
  }

  /** Each name is one of Orkes' roles or an existing custom role's. */
  private async checkRoles(names: readonly string[]): Promise<void> {
    for (const name of names) {
      if (OrkesRoleSchema.safeParse(name).success || (await this.store.getRole(name))) continue;
      const customs = (await this.store.listRoles()).map((r) => r.name);
      throw Errors.ROLE_UNKNOWN(name, [...OrkesRoleSchema.options, ...customs].join(', '));
    }
  }

  private async dropGrantsOf(subject: SubjectRef): Promise<void> {
    for (const g of await this.store.listGrants()) if (sameSubject(g.subject, subject)) await this.store.deleteGrant(g.target, g.subject);
  }
}

const sameSubject = (a: SubjectRef, b: SubjectRef): boolean => a.type === b.type && a.id === b.id;

/** The custom role names among lists of role names (Orkes' own are mapped by src/auth/orkes-roles.ts). */
const customNamesOf = (lists: ReadonlyArray<readonly string[]>): string[] => [...new Set(lists.flat().filter((n) => !OrkesRoleSchema.safeParse(n).success))];
