import { isConsolePath } from '../../../src/api/console-paths';
import { RoutePermissions } from '../../../src/auth/route-permissions';

// The console's pages and assets are open with auth on (they hold no data); the API is not.

describe('console paths', () => {
  it('are every path but the API, its document, health and the Dapr app channel', () => {
    for (const p of ['/', '/executions', '/executions/abc', '/assets/index-x.js', '/definitions/workflow/a%20b']) expect(isConsolePath(p)).toBe(true);
    for (const p of [
      '/api',
      '/api/workflow',
      '/API/workflow/x',
      '/api-docs',
      '/apitasks/t',
      '/health',
      '/healthz',
      '/dapr/config',
      '/actors/WorkflowActor/x/method/m',
    ])
      expect(isConsolePath(p)).toBe(false);
  });

  it('need no token to GET, while anything else unlisted still needs admin', () => {
    const table = new RoutePermissions();
    expect(table.of('GET', '/')).toBe('public');
    expect(table.of('HEAD', '/assets/index.js')).toBe('public');
    expect(table.of('GET', '/executions/x')).toBe('public');
    expect(table.of('POST', '/')).toBe('admin');
    expect(table.of('GET', '/api/not-a-route')).toBe('admin');
    expect(table.of('GET', '/api/workflow/search')).toBe('executions:read');
  });
});
