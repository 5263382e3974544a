import type Database from 'better-sqlite3';
import type { CustomRoleRecord, GrantRecord, GroupRecord, SubjectRef, TargetRef, UserRecord } from '../../model/authorization';
import type { AuthorizationStore } from '../ports';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS authz_users (id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS authz_groups (id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS authz_roles (name TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS authz_grants (
  target_type TEXT NOT NULL, target_id TEXT NOT NULL, subject_type TEXT NOT NULL, subject_id TEXT NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (target_type, target_id, subject_type, subject_id)
);`;

type Row = { data: string };

/** Users, groups, custom roles and grants in the embedded SQLite file. */
export class SqliteAuthorizationStore implements AuthorizationStore {
  private readonly s;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.s = {
      putUser: db.prepare('INSERT INTO authz_users (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data'),
      getUser: db.prepare<[string], Row>('SELECT data FROM authz_users WHERE id = ?'),
      listUsers: db.prepare<[], Row>('SELECT data FROM authz_users ORDER BY id'),
      delUser: db.prepare('DELETE FROM authz_users WHERE id = ?'),
      putGroup: db.prepare('INSERT INTO authz_groups (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data'),
      getGroup: db.prepare<[string], Row>('SELECT data FROM authz_groups WHERE id = ?'),
      listGroups: db.prepare<[], Row>('SELECT data FROM authz_groups ORDER BY id'),
      delGroup: db.prepare('DELETE FROM authz_groups WHERE id = ?'),
      putGrant: db.prepare(
        'INSERT INTO authz_grants (target_type, target_id, subject_type, subject_id, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(target_type, target_id, subject_type, subject_id) DO UPDATE SET data = excluded.data',
      ),
      grantsOn: db.prepare<[string, string], Row>('SELECT data FROM authz_grants WHERE target_type = ? AND target_id = ? ORDER BY subject_type, subject_id'),
      listGrants: db.prepare<[], Row>('SELECT data FROM authz_grants ORDER BY target_type, target_id, subject_type, subject_id'),
      delGrant: db.prepare('DELETE FROM authz_grants WHERE target_type = ? AND target_id = ? AND subject_type = ? AND subject_id = ?'),
      putRole: db.prepare('INSERT INTO authz_roles (name, data) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data'),
      getRole: db.prepare<[string], Row>('SELECT data FROM authz_roles WHERE name = ?'),
      listRoles: db.prepare<[], Row>('SELECT data FROM authz_roles ORDER BY name'),
      delRole: db.prepare('DELETE FROM authz_roles WHERE name = ?'),
    };
  }

  async putUser(u: UserRecord): Promise<void> {
    this.s.putUser.run(u.id, JSON.stringify(u));
  }
  async getUser(id: string): Promise<UserRecord | undefined> {
    return parse<UserRecord>(this.s.getUser.get(id));
  }
  async listUsers(): Promise<UserRecord[]> {
    return this.s.listUsers.all().map((r) => JSON.parse(r.data) as UserRecord);
  }
  async deleteUser(id: string): Promise<boolean> {
    return this.s.delUser.run(id).changes > 0;
  }
  async putGroup(g: GroupRecord): Promise<void> {
    this.s.putGroup.run(g.id, JSON.stringify(g));
  }
  async getGroup(id: string): Promise<GroupRecord | undefined> {
    return parse<GroupRecord>(this.s.getGroup.get(id));
  }
  async listGroups(): Promise<GroupRecord[]> {
    return this.s.listGroups.all().map((r) => JSON.parse(r.data) as GroupRecord);
  }
  async deleteGroup(id: string): Promise<boolean> {
    return this.s.delGroup.run(id).changes > 0;
  }
  async putGrant(g: GrantRecord): Promise<void> {
    this.s.putGrant.run(g.target.type, g.target.id, g.subject.type, g.subject.id, JSON.stringify(g));
  }
  async grantsOn(target: TargetRef): Promise<GrantRecord[]> {
    return this.s.grantsOn.all(target.type, target.id).map((r) => JSON.parse(r.data) as GrantRecord);
  }
  async listGrants(): Promise<GrantRecord[]> {
    return this.s.listGrants.all().map((r) => JSON.parse(r.data) as GrantRecord);
  }
  async deleteGrant(target: TargetRef, subject: SubjectRef): Promise<boolean> {
    return this.s.delGrant.run(target.type, target.id, subject.type, subject.id).changes > 0;
  }
  async putRole(r: CustomRoleRecord): Promise<void> {
    this.s.putRole.run(r.name, JSON.stringify(r));
  }
  async getRole(name: string): Promise<CustomRoleRecord | undefined> {
    return parse<CustomRoleRecord>(this.s.getRole.get(name));
  }
  async listRoles(): Promise<CustomRoleRecord[]> {
    return this.s.listRoles.all().map((r) => JSON.parse(r.data) as CustomRoleRecord);
  }
  async deleteRole(name: string): Promise<boolean> {
    return this.s.delRole.run(name).changes > 0;
  }
}

const parse = <T>(r: Row | undefined): T | undefined => (r ? (JSON.parse(r.data) as T) : undefined);
