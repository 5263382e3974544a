import { accessMap, grantAllows, subjectsOf } from '../../../src/auth/grant-decision';
import { batonRolesOf } from '../../../src/auth/orkes-roles';
import { ENFORCED_TARGET_TYPES, RESOURCE_ROUTES, resourceNeedOf as needOfRoute } from '../../../src/auth/resource-targets';
import { RoutePermissions } from '../../../src/auth/route-permissions';
import type { GrantRecord } from '../../../src/model/authorization';

const target = { type: 'WORKFLOW_DEF' as const, id: 'orders' };
const grant = (subject: GrantRecord['subject'], access: GrantRecord['access']): GrantRecord => ({ subject, target, access });

/** The need of a request path, matched against the route table as the gate matches it. */
const table = new RoutePermissions();
const resourceNeedOf = (method: string, path: string) => needOfRoute(method, table.match(method, path));

describe('grant decision', () => {
  const me = subjectsOf('app:a1', ['team'], ['WORKFLOW_MANAGER']);

  test('a target without grants is open to the caller’s roles', () => {
    expect(grantAllows([], me, ['WORKFLOW_MANAGER'], 'EXECUTE')).toBe(true);
  });

  test('once a grant names the target, only a granted user, group or role with that access passes', () => {
    const other = grant({ type: 'USER', id: 'someone' }, ['EXECUTE']);
    expect(grantAllows([other], me, ['WORKFLOW_MANAGER'], 'EXECUTE')).toBe(false);
    expect(grantAllows([other, grant({ type: 'USER', id: 'app:a1' }, ['EXECUTE'])], me, ['WORKFLOW_MANAGER'], 'EXECUTE')).toBe(true);
    expect(grantAllows([other, grant({ type: 'GROUP', id: 'team' }, ['READ'])], me, ['WORKFLOW_MANAGER'], 'EXECUTE')).toBe(false);
    expect(grantAllows([other, grant({ type: 'GROUP', id: 'team' }, ['READ'])], me, ['WORKFLOW_MANAGER'], 'READ')).toBe(true);
    expect(grantAllows([other, grant({ type: 'ROLE', id: 'WORKFLOW_MANAGER' }, ['EXECUTE'])], me, ['WORKFLOW_MANAGER'], 'EXECUTE')).toBe(true);
    expect(grantAllows([other], subjectsOf('x', [], ['ADMIN']), ['ADMIN'], 'DELETE')).toBe(true);
  });

  test('a role grant by Orkes name needs every Baton role the name stands for', () => {
    const userRole = grant({ type: 'ROLE', id: 'USER' }, ['EXECUTE']);
    expect(grantAllows([userRole], me, ['WORKFLOW_MANAGER'], 'EXECUTE')).toBe(false);
    const both = subjectsOf('app:a1', [], ['WORKFLOW_MANAGER', 'METADATA_MANAGER']);
    expect(grantAllows([userRole], both, ['WORKFLOW_MANAGER', 'METADATA_MANAGER'], 'EXECUTE')).toBe(true);
  });

  test('accessMap answers each access', () => {
    expect(accessMap([grant({ type: 'USER', id: 'app:a1' }, ['READ', 'EXECUTE'])], me, ['WORKFLOW_MANAGER'])).toEqual({
      CREATE: false,
      READ: true,
      UPDATE: false,
      EXECUTE: true,
      DELETE: false,
    });
  });

  test('Orkes role names map to Baton roles', () => {
    expect(batonRolesOf(['USER'])).toEqual(['METADATA_MANAGER', 'WORKFLOW_MANAGER']);
    expect(batonRolesOf(['USER_READ_ONLY', 'APPLICATION_MANAGER'])).toEqual(['READ_ONLY']);
    expect(batonRolesOf(['ADMIN', 'WORKER'])).toEqual(['ADMIN', 'WORKER']);
  });
});

describe('targets named by request paths', () => {
  test('each resource route is a route of the permission table and names its target', () => {
    for (const r of RESOURCE_ROUTES) {
      const [method, template] = r.split(' ') as [string, string];
      // The first parameter names the target (percent-decoded); any others (a version) do not.
      const need = resourceNeedOf(method, template.replace(/\{[^}]+\}/, 'the%20name').replace(/\{[^}]+\}/g, '1'));
      expect([r, need?.target.id]).toEqual([r, 'the name']);
    }
    expect([...ENFORCED_TARGET_TYPES].sort()).toEqual(['SECRET_NAME', 'TASK_DEF', 'WORKFLOW_DEF', 'WORKFLOW_SCHEDULE']);
  });

  test('literal routes beside a parameter are not a target', () => {
    expect(resourceNeedOf('POST', '/api/workflow/orders')).toEqual({ target: { type: 'WORKFLOW_DEF', id: 'orders' }, access: 'EXECUTE' });
    expect(resourceNeedOf('POST', '/api/workflow/test')).toBeUndefined();
    expect(resourceNeedOf('GET', '/api/workflow/orders')).toBeUndefined(); // an execution id
    expect(resourceNeedOf('GET', '/api/metadata/workflow/names')).toBeUndefined();
    expect(resourceNeedOf('GET', '/api/tasks/poll/batch/pay')).toEqual({ target: { type: 'TASK_DEF', id: 'pay' }, access: 'EXECUTE' });
    expect(resourceNeedOf('HEAD', '/API/Metadata/Workflow/orders/')).toEqual({ target: { type: 'WORKFLOW_DEF', id: 'orders' }, access: 'READ' });
    expect(resourceNeedOf('DELETE', '/api/metadata/workflow/orders/2')).toEqual({ target: { type: 'WORKFLOW_DEF', id: 'orders' }, access: 'DELETE' });
  });
});
