import { isConsolePath } from '../../../src/api/console-paths';
import { isAppChannelPath } from '../../../src/auth/route-permissions';

// The gate reads the Dapr app channel's paths as express routes them: case-insensitively, one trailing slash ignored.

test('app-channel paths in any case, and /healthz with its trailing slash', () => {
  for (const p of ['/healthz', '/healthz/', '/HEALTHZ', '/dapr/config', '/DAPR/config', '/actors/WorkflowActor/x/method/m', '/Actors/A/x'])
    expect([p, isAppChannelPath(p)]).toEqual([p, true]);
  for (const p of ['/healthzx', '/dapr', '/actors', '/actorsx/a', '/api/dapr/x', '/health']) expect([p, isAppChannelPath(p)]).toEqual([p, false]);
});

test('no app-channel path is a console path', () => {
  for (const p of ['/healthz', '/healthz/', '/HEALTHZ/', '/dapr/config', '/DAPR/config', '/actors/A/x']) expect([p, isConsolePath(p)]).toEqual([p, false]);
});
