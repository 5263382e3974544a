import type { Client } from 'cassandra-driver';
import type { CustomRoleRecord, GrantRecord, GroupRecord, SubjectRef, TargetRef, UserRecord } from '../../model/authorization';
import type { AuthorizationStore } from '../ports';
import { JsonRows, type JsonRowsOptions } from './json-rows';

/** Users, groups, custom roles and grants over Cassandra (tables from migrations 007 and 010). Every statement is idempotent. */
export class CassandraAuthorizationStore implements AuthorizationStore {
  private readonly q;
  private readonly rows: JsonRows;

  constructor(client: Client, opts: JsonRowsOptions) {
    this.rows = new JsonRows(client, opts);
    const ks = this.rows.keyspace;
    this.q = {
      putUser: `INSERT INTO ${ks}.authz_users (id, user_json) VALUES (?, ?)`,
      getUser: `SELECT user_json FROM ${ks}.authz_users WHERE id = ?`,
      listUsers: `SELECT user_json FROM ${ks}.authz_users`,
      delUser: `DELETE FROM ${ks}.authz_users WHERE id = ?`,
      putGroup: `INSERT INTO ${ks}.authz_groups (id, group_json) VALUES (?, ?)`,
      getGroup: `SELECT group_json FROM ${ks}.authz_groups WHERE id = ?`,
      listGroups: `SELECT group_json FROM ${ks}.authz_groups`,
      delGroup: `DELETE FROM ${ks}.authz_groups WHERE id = ?`,
      putGrant: `INSERT INTO ${ks}.authz_grants (target_type, target_id, subject_type, subject_id, grant_json) VALUES (?, ?, ?, ?, ?)`,
      grantsOn: `SELECT grant_json FROM ${ks}.authz_grants WHERE target_type = ? AND target_id = ?`,
      getGrant: `SELECT grant_json FROM ${ks}.authz_grants WHERE target_type = ? AND target_id = ? AND subject_type = ? AND subject_id = ?`,
      listGrants: `SELECT grant_json FROM ${ks}.authz_grants`,
      delGrant: `DELETE FROM ${ks}.authz_grants WHERE target_type = ? AND target_id = ? AND subject_type = ? AND subject_id = ?`,
      putRole: `INSERT INTO ${ks}.authz_roles (name, role_json) VALUES (?, ?)`,
      getRole: `SELECT role_json FROM ${ks}.authz_roles WHERE name = ?`,
      listRoles: `SELECT role_json FROM ${ks}.authz_roles`,
      delRole: `DELETE FROM ${ks}.authz_roles WHERE name = ?`,
    };
  }

  async putUser(u: UserRecord): Promise<void> {
    await this.rows.exec(this.q.putUser, [u.id, JSON.stringify(u)]);
  }
  getUser(id: string): Promise<UserRecord | undefined> {
    return this.rows.one(this.q.getUser, [id], 'user_json');
  }
  async listUsers(): Promise<UserRecord[]> {
    return (await this.rows.all<UserRecord>(this.q.listUsers, [], 'user_json')).sort((a, b) => cmp(a.id, b.id));
  }
  async deleteUser(id: string): Promise<boolean> {
    // Read, then delete: an admin operation, no race worth a transaction (as the metadata store does).
    if (!(await this.getUser(id))) return false;
    await this.rows.exec(this.q.delUser, [id]);
    return true;
  }
  async putGroup(g: GroupRecord): Promise<void> {
    await this.rows.exec(this.q.putGroup, [g.id, JSON.stringify(g)]);
  }
  getGroup(id: string): Promise<GroupRecord | undefined> {
    return this.rows.one(this.q.getGroup, [id], 'group_json');
  }
  async listGroups(): Promise<GroupRecord[]> {
    return (await this.rows.all<GroupRecord>(this.q.listGroups, [], 'group_json')).sort((a, b) => cmp(a.id, b.id));
  }
  async deleteGroup(id: string): Promise<boolean> {
    if (!(await this.getGroup(id))) return false;
    await this.rows.exec(this.q.delGroup, [id]);
    return true;
  }
  async putGrant(g: GrantRecord): Promise<void> {
    await this.rows.exec(this.q.putGrant, [g.target.type, g.target.id, g.subject.type, g.subject.id, JSON.stringify(g)]);
  }
  async grantsOn(target: TargetRef): Promise<GrantRecord[]> {
    return (await this.rows.all<GrantRecord>(this.q.grantsOn, [target.type, target.id], 'grant_json')).sort(bySubject);
  }
  async listGrants(): Promise<GrantRecord[]> {
    return (await this.rows.all<GrantRecord>(this.q.listGrants, [], 'grant_json')).sort(
      (a, b) => cmp(a.target.type, b.target.type) || cmp(a.target.id, b.target.id) || bySubject(a, b),
    );
  }
  async deleteGrant(target: TargetRef, subject: SubjectRef): Promise<boolean> {
    const key = [target.type, target.id, subject.type, subject.id];
    if (!(await this.rows.one(this.q.getGrant, key, 'grant_json'))) return false;
    await this.rows.exec(this.q.delGrant, key);
    return true;
  }
  async putRole(r: CustomRoleRecord): Promise<void> {
    await this.rows.exec(this.q.putRole, [r.name, JSON.stringify(r)]);
  }
  getRole(name: string): Promise<CustomRoleRecord | undefined> {
    return this.rows.one(this.q.getRole, [name], 'role_json');
  }
  async listRoles(): Promise<CustomRoleRecord[]> {
    return (await this.rows.all<CustomRoleRecord>(this.q.listRoles, [], 'role_json')).sort((a, b) => cmp(a.name, b.name));
  }
  async deleteRole(name: string): Promise<boolean> {
    if (!(await this.getRole(name))) return false;
    await this.rows.exec(this.q.delRole, [name]);
    return true;
  }
}

// Byte order, as SQLite's ORDER BY on text sorts.
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const bySubject = (a: GrantRecord, b: GrantRecord): number => cmp(a.subject.type, b.subject.type) || cmp(a.subject.id, b.subject.id);
