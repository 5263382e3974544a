import { CONSOLE_ROUTES } from '../../../src/api/console-api';
import { apiRoutes, type ApiDeps } from '../../../src/api/routes';

// The console's typed client takes its paths and answer types from CONSOLE_ROUTES: each row must be
// a route of the table, answering what the table declares.

test('every route the console calls is a route of the table, with the answer the table declares', () => {
  const table = new Map(apiRoutes({ access: {} } as ApiDeps).map((r) => [`${r.method.toUpperCase()} ${r.path}`, r]));
  const rows = Object.entries(CONSOLE_ROUTES).map(([key, { res }]) => {
    const route = table.get(key);
    const kind = (b: unknown): unknown => (typeof b === 'object' && b !== null && 'inline' in b ? 'inline' : b);
    return [key, kind(res), route && kind(route.res)];
  });
  expect(rows.filter(([, mine, theirs]) => JSON.stringify(mine) !== JSON.stringify(theirs))).toEqual([]);
  expect(rows.length).toBeGreaterThan(30);
});
