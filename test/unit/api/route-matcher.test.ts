import { RouteMatcher } from '../../../src/api/route-matcher';
import { openApiDocument } from '../../../src/api/openapi';
import { apiRoutes, type ApiDeps } from '../../../src/api/routes';
import { POLL_LIMITS } from '../../../src/api/worker-calls';
import { RoutePermissions } from '../../../src/auth/route-permissions';

// The route table executes: the matcher the gate and the hot path read is built from its rows, so a
// row's permission, its hot call and its query limits are declared in one place.

const rows = [
  { method: 'get', path: '/api/workflow/search', permission: 'executions:read' },
  { method: 'get', path: '/api/workflow/{workflowId}', permission: 'executions:read' },
  { method: 'post', path: '/api/workflow/{name}', permission: 'executions:start' },
  { method: 'get', path: '/api/workflow/{workflowId}/status', permission: 'executions:read' },
  { method: 'put', path: '/api/workflow/bulk/pause', permission: 'executions:manage' },
] as const;

describe('the route matcher', () => {
  const m = new RouteMatcher(rows);

  test('finds the row and its parameters as sent: literals case-insensitive, one trailing slash, HEAD as GET', () => {
    expect(m.match('GET', '/API/Workflow/a%20b/')).toEqual({ route: rows[1], params: { workflowId: 'a%20b' } });
    expect(m.match('HEAD', '/api/workflow/search')?.route).toBe(rows[0]);
    expect(m.match('POST', '/api/workflow/search')).toEqual({ route: rows[2], params: { name: 'search' } });
  });

  test('a literal wins, and a parameter takes over where the literal path does not continue', () => {
    expect(m.match('GET', '/api/workflow/search/status')).toEqual({ route: rows[3], params: { workflowId: 'search' } });
    expect(m.match('PUT', '/api/workflow/bulk/pause')?.route).toBe(rows[4]);
  });

  test('no row: unknown methods, empty segments, longer paths', () => {
    expect([
      m.match('PATCH', '/api/workflow/x'),
      m.match('GET', '/api/workflow//status'),
      m.match('GET', '/api/workflow/x/y/z'),
      m.match(undefined, '/'),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });

  test('rows of one shape needing different permissions are refused when the table is built', () => {
    expect(
      () =>
        new RouteMatcher([
          { method: 'get', path: '/a/{x}', permission: 'public' },
          { method: 'GET', path: '/A/{y}', permission: 'admin' },
        ]),
    ).toThrow(/conflicting permissions/);
  });
});

describe('what derives from the route table', () => {
  const routes = apiRoutes({ access: {} } as ApiDeps);

  test('a row declared with a permission is what the gate asks for', () => {
    const t = new RoutePermissions([...routes, { method: 'get', path: '/api/extra/{id}', permission: 'queues:read' }]);
    expect([t.of('GET', '/api/extra/1'), t.of('GET', '/api/workflow/w1'), t.of('GET', '/api/nothing')]).toEqual(['queues:read', 'executions:read', 'admin']);
  });

  test('the hot path serves the rows marked hot, and only those', () => {
    const hot = routes.filter((r) => r.hot).map((r) => `${r.method.toUpperCase()} ${r.path} ${r.hot}`);
    expect(hot.sort()).toEqual(
      [
        'GET /api/task/poll/batch/{taskType} pollBatch',
        'GET /api/tasks/poll/batch/{taskType} pollBatch',
        'POST /api/task update',
        'POST /api/task/update-v2 updateV2',
        'POST /api/tasks update',
        'POST /api/tasks/update-v2 updateV2',
        'POST /api/workflow start',
      ].sort(),
    );
    const m = new RouteMatcher(routes);
    expect(m.match('GET', '/api/tasks/poll/batch/my%2Ftype')).toMatchObject({ route: { hot: 'pollBatch' }, params: { taskType: 'my%2Ftype' } });
  });

  test("the batch poll's document states the limits its handler enforces", () => {
    const doc = openApiDocument('test', routes) as { paths: Record<string, { get: { parameters: Array<{ name: string; schema: unknown }> } }> };
    const params = Object.fromEntries(doc.paths['/api/tasks/poll/batch/{taskType}']!.get.parameters.map((p) => [p.name, p.schema]));
    expect([params.count, params.timeout]).toEqual([
      { type: 'integer', minimum: POLL_LIMITS.count.min, maximum: POLL_LIMITS.count.max },
      { type: 'integer', minimum: POLL_LIMITS.timeout.min, maximum: POLL_LIMITS.timeout.max },
    ]);
  });
});
