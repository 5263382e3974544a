import { randomUUID } from 'node:crypto';
import type { GrantRecord, GroupRecord, UserRecord } from '../../src/model/authorization';
import type { AuthorizationStore } from '../../src/store/ports';
import { T0 } from './fixtures';

/** The definition of an AuthorizationStore: every adapter runs this one list. Stores may be shared, so ids are fresh. */
export interface AuthorizationStoreUnderTest {
  store: AuthorizationStore;
  cleanup(): Promise<void>;
}

const fresh = (prefix: string): string => `${prefix}_${randomUUID().slice(0, 8)}`;
const user = (id: string, over: Partial<UserRecord> = {}): UserRecord => ({ id, name: id, roles: [], groups: [], createTime: T0, updateTime: T0, ...over });
const group = (id: string, over: Partial<GroupRecord> = {}): GroupRecord => ({
  id,
  description: '',
  roles: [],
  defaultAccess: {},
  createTime: T0,
  updateTime: T0,
  ...over,
});

export function describeAuthorizationStoreContract(adapter: string, open: () => Promise<AuthorizationStoreUnderTest>): void {
  describe(`AuthorizationStore contract: ${adapter}`, () => {
    let u: AuthorizationStoreUnderTest;
    beforeAll(async () => {
      u = await open();
    }, 120_000);
    afterAll(async () => {
      await u?.cleanup();
    }, 120_000);

    test('users: put, get, replace, list by id, delete reporting whether one existed', async () => {
      const [a, b] = [fresh('user_b'), fresh('user_a')];
      await u.store.putUser(user(a));
      await u.store.putUser(user(b, { roles: ['USER'], groups: ['g1'] }));
      const next = user(a, { name: 'Ann', roles: ['ADMIN'], updateTime: T0 + 1 });
      await u.store.putUser(next);
      expect(await u.store.getUser(a)).toEqual(next);
      expect(await u.store.getUser(fresh('none'))).toBeUndefined();
      const ids = (await u.store.listUsers()).map((x) => x.id);
      expect(ids.filter((i) => i === a || i === b)).toEqual([a, b].sort());
      expect(ids).toEqual([...ids].sort());
      expect(await u.store.deleteUser(a)).toBe(true);
      expect(await u.store.deleteUser(a)).toBe(false);
      expect(await u.store.getUser(a)).toBeUndefined();
    });

    test('groups: put, get, replace, list by id, delete reporting whether one existed', async () => {
      const id = fresh('group');
      await u.store.putGroup(group(id));
      const next = group(id, { description: 'team', roles: ['WORKER'], defaultAccess: { WORKFLOW_DEF: ['READ'] }, updateTime: T0 + 1 });
      await u.store.putGroup(next);
      expect(await u.store.getGroup(id)).toEqual(next);
      expect((await u.store.listGroups()).filter((g) => g.id === id)).toEqual([next]);
      expect(await u.store.deleteGroup(id)).toBe(true);
      expect(await u.store.deleteGroup(id)).toBe(false);
      expect(await u.store.getGroup(id)).toBeUndefined();
    });

    test('grants: one per subject and target, replaced by put, read per target by subject, deleted one at a time', async () => {
      const target = { type: 'WORKFLOW_DEF' as const, id: fresh('wf') };
      const other = { type: 'TASK_DEF' as const, id: fresh('task') };
      const byUser: GrantRecord = { subject: { type: 'USER', id: 'zed' }, target, access: ['READ'] };
      const byGroup: GrantRecord = { subject: { type: 'GROUP', id: 'ops' }, target, access: ['EXECUTE'] };
      await u.store.putGrant(byUser);
      await u.store.putGrant(byGroup);
      await u.store.putGrant({ subject: { type: 'USER', id: 'zed' }, target: other, access: ['DELETE'] });
      const widened = { ...byUser, access: ['READ', 'UPDATE'] as GrantRecord['access'] };
      await u.store.putGrant(widened);
      expect(await u.store.grantsOn(target)).toEqual([byGroup, widened]);
      expect(await u.store.grantsOn({ type: 'WORKFLOW_DEF', id: fresh('none') })).toEqual([]);
      const all = (await u.store.listGrants()).filter((g) => g.target.id === target.id || g.target.id === other.id);
      expect(all.map((g) => `${g.target.type}/${g.subject.type}`)).toEqual(['TASK_DEF/USER', 'WORKFLOW_DEF/GROUP', 'WORKFLOW_DEF/USER']);
      expect(await u.store.deleteGrant(target, byUser.subject)).toBe(true);
      expect(await u.store.deleteGrant(target, byUser.subject)).toBe(false);
      expect(await u.store.grantsOn(target)).toEqual([byGroup]);
    });

    test('custom roles: put, get, replace, list by name, delete reporting whether one existed', async () => {
      const [a, b] = [fresh('role_b'), fresh('role_a')];
      await u.store.putRole({ name: a, permissions: ['READ_WORKFLOW_DEF'], createTime: T0, updateTime: T0 });
      await u.store.putRole({ name: b, permissions: [], createTime: T0, updateTime: T0 });
      const next = { name: a, permissions: ['READ_WORKFLOW_DEF', 'EXECUTE_WORKFLOW_DEF'], createTime: T0, updateTime: T0 + 1 };
      await u.store.putRole(next);
      expect(await u.store.getRole(a)).toEqual(next);
      expect(await u.store.getRole(fresh('none'))).toBeUndefined();
      const names = (await u.store.listRoles()).map((r) => r.name);
      expect(names.filter((n) => n === a || n === b)).toEqual([a, b].sort());
      expect(names).toEqual([...names].sort());
      expect(await u.store.deleteRole(a)).toBe(true);
      expect(await u.store.deleteRole(a)).toBe(false);
      expect(await u.store.getRole(a)).toBeUndefined();
    });
  });
}
