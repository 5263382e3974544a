import { randomUUID } from 'node:crypto';
import { type AccessKeyInfo, type AccessKeyRecord, type ApplicationRecord, type Role, ROLES, type Tag } from '../model/applications';
import { OrkesRoleSchema } from '../model/authorization';
import { batonRolesOf } from './orkes-roles';
import { checkRecordCount, DEFAULT_RECORD_CAPS } from '../services/definition-limits';
import { Errors } from '../model/named-errors';
import type { MetadataStore } from '../store/ports';
import type { AccessDirectory } from './access-directory';
import { newAccessKey } from './secrets';

// The Orkes application API behind /api/applications: applications hold roles, access keys belong
// to one application. Every change forgets this replica's cached principals at once; other replicas
// see it within BATON_AUTH_CACHE_MS.

/** Access keys one application may hold (Orkes also caps them); rotating means create, switch, delete. */
export const MAX_KEYS_PER_APPLICATION = 10;

/** Applications are answered as stored: the SDKs' ExtendedConductorApplication fields, plus `roles`. */
export class ApplicationService {
  constructor(
    private readonly store: MetadataStore,
    private readonly directory: AccessDirectory,
    private readonly now: () => number = Date.now,
    /** BATON_MAX_APPLICATIONS. */
    private readonly maxApplications: number = DEFAULT_RECORD_CAPS.applications,
  ) {}

  list(): Promise<ApplicationRecord[]> {
    return this.store.listApplications();
  }

  async create(name: string, by: string): Promise<ApplicationRecord> {
    checkRecordCount('applications', await this.store.countApplications(this.maxApplications), 1, this.maxApplications);
    const t = this.now();
    const app: ApplicationRecord = { id: randomUUID(), name, createdBy: by, createTime: t, updatedBy: by, updateTime: t, roles: [], tags: [] };
    await this.store.putApplication(app);
    return app;
  }

  async get(id: string): Promise<ApplicationRecord> {
    const app = await this.store.getApplication(id);
    if (!app) throw Errors.APPLICATION_NOT_FOUND(id);
    return app;
  }

  async byAccessKey(keyId: string): Promise<ApplicationRecord> {
    const key = await this.store.getAccessKey(keyId);
    const app = key && (await this.store.getApplication(key.applicationId));
    if (!app) throw Errors.ACCESS_KEY_APPLICATION_NOT_FOUND(keyId);
    return app;
  }

  rename(id: string, name: string, by: string): Promise<ApplicationRecord> {
    return this.change(id, by, (app) => ({ ...app, name }));
  }

  async delete(id: string): Promise<void> {
    await this.get(id);
    for (const key of await this.store.listAccessKeys(id)) await this.store.deleteAccessKey(key.id);
    await this.store.deleteApplication(id);
    this.directory.invalidate();
  }

  async addRole(id: string, role: string, by: string): Promise<ApplicationRecord> {
    const rs = rolesOf(role);
    return this.change(id, by, (app) => ({ ...app, roles: [...app.roles, ...rs.filter((r) => !app.roles.includes(r))] }));
  }

  async removeRole(id: string, role: string, by: string): Promise<ApplicationRecord> {
    const rs = rolesOf(role);
    return this.change(id, by, (app) => ({ ...app, roles: app.roles.filter((x) => !rs.includes(x)) }));
  }

  tags(id: string): Promise<Tag[]> {
    return this.get(id).then((app) => app.tags);
  }

  async addTags(id: string, tags: Tag[], by: string): Promise<void> {
    const same = (a: Tag, b: Tag) => a.key === b.key && a.value === b.value;
    await this.change(id, by, (app) => ({ ...app, tags: [...app.tags.filter((t) => !tags.some((n) => same(t, n))), ...tags] }));
  }

  async removeTags(id: string, tags: Tag[], by: string): Promise<void> {
    await this.change(id, by, (app) => ({ ...app, tags: app.tags.filter((t) => !tags.some((n) => t.key === n.key && t.value === n.value)) }));
  }

  /** A new key: the secret is in this answer only. */
  async createKey(applicationId: string): Promise<{ id: string; secret: string }> {
    await this.get(applicationId);
    if ((await this.store.listAccessKeys(applicationId)).length >= MAX_KEYS_PER_APPLICATION)
      throw Errors.ACCESS_KEYS_AT_LIMIT(applicationId, MAX_KEYS_PER_APPLICATION);
    const key = newAccessKey();
    await this.store.putAccessKey({
      id: key.id,
      applicationId,
      secretHash: await this.directory.hashSecret(key.secret),
      status: 'ACTIVE',
      createdAt: this.now(),
    });
    return key;
  }

  async keys(applicationId: string): Promise<AccessKeyInfo[]> {
    await this.get(applicationId);
    return (await this.store.listAccessKeys(applicationId)).map(info);
  }

  async deleteKey(applicationId: string, keyId: string): Promise<void> {
    await this.keyOf(applicationId, keyId);
    await this.store.deleteAccessKey(keyId);
    this.directory.invalidate();
  }

  /** ACTIVE <-> INACTIVE; answers the key as it is now. */
  async toggleKey(applicationId: string, keyId: string): Promise<AccessKeyInfo> {
    const key = await this.keyOf(applicationId, keyId);
    const next: AccessKeyRecord = { ...key, status: key.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE' };
    await this.store.putAccessKey(next);
    this.directory.invalidate();
    return info(next);
  }

  private async keyOf(applicationId: string, keyId: string): Promise<AccessKeyRecord> {
    const key = await this.store.getAccessKey(keyId);
    if (!key || key.applicationId !== applicationId) throw Errors.ACCESS_KEY_NOT_FOUND(applicationId, keyId);
    return key;
  }

  private async change(id: string, by: string, f: (app: ApplicationRecord) => ApplicationRecord): Promise<ApplicationRecord> {
    const app = await this.get(id);
    const next = { ...f(app), updatedBy: by, updateTime: this.now() };
    await this.store.putApplication(next);
    this.directory.invalidate();
    return next;
  }
}

/** Baton's roles of an Orkes role name (src/auth/orkes-roles.ts; Baton's own names are Orkes names too). */
function rolesOf(role: string): Role[] {
  const r = OrkesRoleSchema.safeParse(role);
  if (!r.success) throw Errors.APPLICATION_ROLE_UNKNOWN(role, OrkesRoleSchema.options.join(', '), ROLES.join(', '));
  return batonRolesOf([r.data]);
}

const info = (k: AccessKeyRecord): AccessKeyInfo => ({ id: k.id, createdAt: k.createdAt, status: k.status });
