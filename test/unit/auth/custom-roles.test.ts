import {
  customPermissionsOf,
  isBuiltInRole,
  permissionsByResource,
  ROLE_PERMISSION_NAMES,
  systemRolePermissions,
  unknownPermissions,
} from '../../../src/auth/custom-roles';
import type { CustomRoleRecord } from '../../../src/model/authorization';

const role = (name: string, permissions: string[]): [string, CustomRoleRecord] => [name, { name, permissions, createTime: 0, updateTime: 0 }];

describe('custom roles in route permissions', () => {
  test('each ACCESS_RESOURCE name amounts to route permissions; unknown names are found in order', () => {
    expect(ROLE_PERMISSION_NAMES.get('READ_WORKFLOW_DEF')).toEqual(['definitions:read']);
    expect(ROLE_PERMISSION_NAMES.get('EXECUTE_TASK_DEF')).toEqual(['tasks:poll', 'tasks:update', 'queues:read']);
    expect(unknownPermissions(['READ_WORKFLOW', 'workflow-read', 'READ_SECRET_NAME'])).toEqual(['workflow-read', 'READ_SECRET_NAME']);
    expect(Object.keys(permissionsByResource())).toEqual(['WORKFLOW_DEF', 'TASK_DEF', 'WORKFLOW', 'TASK_ID']);
  });

  test('the custom roles among names give the union of their permissions; built-in and unknown names give nothing', () => {
    const customs = new Map([role('reader', ['READ_WORKFLOW_DEF', 'READ_WORKFLOW']), role('runner', ['EXECUTE_WORKFLOW_DEF'])]);
    expect([...customPermissionsOf(['reader', 'runner', 'ADMIN', 'ghost'], customs)].sort()).toEqual([
      'definitions:read',
      'executions:read',
      'executions:start',
    ]);
    expect(customPermissionsOf(['ADMIN'], customs).size).toBe(0);
  });

  test("system roles list the names their Baton roles cover; Orkes' and Baton's names are built in", () => {
    expect(systemRolePermissions('READ_ONLY')).toEqual(['READ_WORKFLOW_DEF', 'READ_TASK_DEF', 'READ_WORKFLOW', 'READ_TASK_ID']);
    expect(systemRolePermissions('ADMIN')).toEqual([...ROLE_PERMISSION_NAMES.keys()]);
    expect(['ADMIN', 'USER', 'READ_ONLY', 'UNRESTRICTED_WORKER'].every(isBuiltInRole)).toBe(true);
    expect(isBuiltInRole('TEST_ROLE_1')).toBe(false);
    expect(isBuiltInRole('constructor')).toBe(false);
  });
});
