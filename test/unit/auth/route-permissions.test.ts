import { allRouteTemplates } from '../../../src/api/routes';

const DOCUMENTED_ROUTES = allRouteTemplates();
import { allows, ROLE_PERMISSIONS } from '../../../src/auth/roles';
import { isAppChannelPath, ROUTE_PERMISSIONS, RoutePermissions, UNLISTED_PERMISSION } from '../../../src/auth/route-permissions';
import { ROLES } from '../../../src/model/applications';

const table = new RoutePermissions();
/** A documented path with every parameter filled by a value that is no literal of any route. */
const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, 'p-value');

describe('the route permission table', () => {
  test('every route the OpenAPI document lists (every route Baton serves) has a rule', () => {
    expect(DOCUMENTED_ROUTES.length).toBeGreaterThan(140);
    const missing = DOCUMENTED_ROUTES.filter((r) => table.rule(r.method.toUpperCase(), concrete(r.path)) === undefined).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  test('every rule is a documented route (no rule for a path nobody serves)', () => {
    const documented = new Set(DOCUMENTED_ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/\{[^}]+\}/g, '{}').toLowerCase()}`));
    const stray = ROUTE_PERMISSIONS.map((r) => `${r.method} ${r.path.replace(/\{[^}]+\}/g, '{}').toLowerCase()}`).filter((k) => !documented.has(k));
    expect(stray).toEqual([]);
  });

  test('routes need the permission of what they do', () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/health', 'public'],
      ['POST', '/api/token', 'public'],
      ['GET', '/api/version', 'authenticated'],
      ['POST', '/api/workflow', 'executions:start'],
      ['POST', '/api/workflow/my_flow', 'executions:start'],
      ['POST', '/api/workflow/test', 'executions:start'],
      ['DELETE', '/api/workflow/wf-1', 'executions:manage'],
      ['PUT', '/api/workflow/wf-1/pause', 'executions:manage'],
      ['POST', '/api/workflow/bulk/terminate', 'executions:manage'],
      ['GET', '/api/workflow/wf-1', 'executions:read'],
      ['GET', '/api/workflow/search', 'executions:read'],
      ['POST', '/api/workflow/my_flow/correlated', 'executions:read'],
      ['GET', '/api/tasks/poll/batch/t', 'tasks:poll'],
      ['GET', '/api/task/poll/t', 'tasks:poll'],
      ['POST', '/api/tasks', 'tasks:update'],
      ['POST', '/api/tasks/update-v2', 'tasks:poll'],
      ['POST', '/api/tasks/wf-1/ref/COMPLETED', 'tasks:update'],
      ['POST', '/api/tasks/wf-1/COMPLETED/signal', 'tasks:update'],
      ['GET', '/api/tasks/queue/sizes', 'queues:read'],
      ['POST', '/api/metadata/taskdefs', 'definitions:write'],
      ['PUT', '/api/metadata/workflow', 'definitions:write'],
      ['DELETE', '/api/metadata/workflowdef/w/1', 'definitions:write'],
      ['POST', '/api/metadata/workflowdef/validate', 'definitions:read'],
      ['GET', '/api/metadata/taskdefs/t', 'definitions:read'],
      ['GET', '/api/event/handler/h', 'definitions:read'],
      ['POST', '/api/event/handleIncomingEvent', 'executions:start'],
      ['GET', '/api/admin/config', 'admin'],
      ['POST', '/api/tasks/queue/requeue/t', 'admin'],
      ['POST', '/api/applications/a/accessKeys', 'admin'],
      ['POST', '/api/applications/a/roles/WORKER', 'admin'],
    ];
    expect(cases.map(([m, p]) => [m, p, table.of(m, p)])).toEqual(cases);
  });

  test('literal segments win over parameters, as in express: /api/workflow/search is a search, not workflow "search"', () => {
    expect(table.of('GET', '/api/workflow/search')).toBe('executions:read');
    expect(table.of('PUT', '/api/workflow/decide/wf')).toBe('executions:manage');
    expect(table.of('GET', '/api/applications/key/k1')).toBe('admin');
    // A workflow named like a literal still resolves through the parameter where the literal path does not continue.
    expect(table.of('PUT', '/api/workflow/bulk/pause')).toBe('executions:manage');
    expect(table.of('GET', '/api/workflow/search/status')).toBe('executions:read');
  });

  test('matching follows express: case-insensitive literals, one trailing slash, HEAD as GET', () => {
    expect(table.of('DELETE', '/API/Workflow/wf-1')).toBe('executions:manage');
    expect(table.of('GET', '/api/tasks/poll/batch/t/')).toBe('tasks:poll');
    expect(table.of('HEAD', '/health')).toBe('public');
  });

  test('anything no rule matches needs admin: unknown paths, unknown methods, empty segments', () => {
    expect(UNLISTED_PERMISSION).toBe('admin');
    expect(table.of('GET', '/api/nothing-here')).toBe('admin');
    expect(table.of('PATCH', '/api/workflow/wf-1')).toBe('admin');
    expect(table.of('OPTIONS', '/api/workflow')).toBe('admin');
    expect(table.of('DELETE', '/api/workflow//remove')).toBe('admin');
    // GET / is the console's page (open, see test/unit/ui/console-paths.test.ts); other methods stay closed.
    expect(table.of('POST', '/')).toBe('admin');
  });

  test('two rules for one route with different permissions are refused when the table is built', () => {
    expect(
      () =>
        new RoutePermissions([
          { method: 'GET', path: '/a/{x}', permission: 'public' },
          { method: 'GET', path: '/a/{y}', permission: 'admin' },
        ]),
    ).toThrow(/conflicting/);
  });

  test('the Dapr app channel is left to the app token', () => {
    expect(['/healthz', '/dapr/config', '/dapr/subscribe', '/dapr/events/completions', '/actors/WorkflowActor/x/method/turn'].every(isAppChannelPath)).toBe(
      true,
    );
    expect(['/api/workflow', '/health', '/daprx', '/actorsx'].some(isAppChannelPath)).toBe(false);
  });
});

describe('roles', () => {
  const can = (role: (typeof ROLES)[number], method: string, path: string) => allows([role], table.of(method, path));

  test('a WORKER polls, updates and reads queue sizes, and nothing else', () => {
    expect(can('WORKER', 'GET', '/api/tasks/poll/batch/t')).toBe(true);
    expect(can('WORKER', 'POST', '/api/tasks')).toBe(true);
    expect(can('WORKER', 'POST', '/api/tasks/update-v2')).toBe(true);
    expect(can('WORKER', 'POST', '/api/tasks/t1/log')).toBe(true);
    expect(can('WORKER', 'GET', '/api/tasks/queue/sizes')).toBe(true);
    expect(can('WORKER', 'DELETE', '/api/workflow/wf-1')).toBe(false); // terminate
    expect(can('WORKER', 'POST', '/api/workflow/bulk/terminate')).toBe(false);
    expect(can('WORKER', 'PUT', '/api/metadata/taskdefs')).toBe(false);
    expect(can('WORKER', 'POST', '/api/metadata/workflowdef')).toBe(false);
    expect(can('WORKER', 'POST', '/api/workflow')).toBe(false);
    expect(can('WORKER', 'GET', '/api/workflow/wf-1')).toBe(false);
    expect(can('WORKER', 'GET', '/api/admin/config')).toBe(false);
  });

  test('READ_ONLY reads and changes nothing; METADATA_MANAGER changes definitions only; WORKFLOW_MANAGER runs executions only', () => {
    expect(can('READ_ONLY', 'GET', '/api/workflow/search')).toBe(true);
    expect(can('READ_ONLY', 'GET', '/api/metadata/workflow')).toBe(true);
    expect(can('READ_ONLY', 'POST', '/api/workflow')).toBe(false);
    expect(can('READ_ONLY', 'GET', '/api/tasks/poll/batch/t')).toBe(false);
    expect(can('METADATA_MANAGER', 'POST', '/api/metadata/workflowdef')).toBe(true);
    expect(can('METADATA_MANAGER', 'DELETE', '/api/event/h')).toBe(true);
    expect(can('METADATA_MANAGER', 'POST', '/api/workflow')).toBe(false);
    expect(can('WORKFLOW_MANAGER', 'POST', '/api/workflow')).toBe(true);
    expect(can('WORKFLOW_MANAGER', 'DELETE', '/api/workflow/wf-1')).toBe(true);
    expect(can('WORKFLOW_MANAGER', 'POST', '/api/tasks/wf-1/ref/COMPLETED')).toBe(true);
    expect(can('WORKFLOW_MANAGER', 'PUT', '/api/metadata/taskdefs')).toBe(false);
    expect(can('WORKFLOW_MANAGER', 'GET', '/api/tasks/poll/batch/t')).toBe(false);
    for (const role of ROLES.filter((r) => r !== 'ADMIN')) {
      expect([role, can(role, 'GET', '/api/admin/config'), can(role, 'POST', '/api/applications')]).toEqual([role, false, false]);
    }
  });

  test('ADMIN may do everything; roles add up; without roles a token only says who it is', () => {
    for (const r of ROUTE_PERMISSIONS) expect(allows(['ADMIN'], r.permission)).toBe(true);
    expect(allows(['WORKER', 'METADATA_MANAGER'], 'definitions:write')).toBe(true);
    expect(allows(['WORKER', 'METADATA_MANAGER'], 'tasks:poll')).toBe(true);
    expect(allows([], 'authenticated')).toBe(true);
    expect(allows([], 'executions:read')).toBe(false);
    expect(allows([], 'public')).toBe(true);
    expect(Object.keys(ROLE_PERMISSIONS).sort()).toEqual([...ROLES].sort());
  });
});
