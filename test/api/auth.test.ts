import { SignJWT } from 'jose';
import { ConfigError } from '../../src/config';
import { apiClient } from '../support/api-client';
import { eventually } from '../support/baton';
import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { uniqueName } from '../support/names';

// Who may do what, over real HTTP against an embedded Baton with auth on: tokens, roles, the hot path
// (start, poll, update on node:http) answering exactly as express does, and secrets kept out of sight.

const TOKEN_SECRET = 'test-signing-key-0123456789-abcdefghijklmnop';

let b: AuthBaton;
let admin: string;
const asAdmin = apiClient(() => b.url, { headers: () => ({ 'x-authorization': admin }) });

/** An application with `roles` and one key; answers the key and a token for it. */
async function appWith(roles: string[]): Promise<{ appId: string; keyId: string; keySecret: string; token: string }> {
  const app = await raw(b.port, 'POST', '/api/applications', { token: admin, body: { name: uniqueName('app') } });
  expect(app.status).toBe(200);
  for (const role of roles) expect((await raw(b.port, 'POST', `/api/applications/${app.body.id}/roles/${role}`, { token: admin })).status).toBe(200);
  const key = await raw(b.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
  expect(key.status).toBe(200);
  const creds = { keyId: key.body.id as string, keySecret: key.body.secret as string };
  return { appId: app.body.id, ...creds, token: await tokenFor(b.port, creds) };
}

/** A registered one-task workflow, started by the admin; answers its name, task type and id. */
async function started(): Promise<{ name: string; type: string; id: string }> {
  const name = uniqueName('auth_wf');
  const type = uniqueName('auth_task');
  await asAdmin.register({ name, tasks: [{ name: type, taskReferenceName: 'only', type: 'SIMPLE' }] });
  return { name, type, id: await asAdmin.start(name) };
}

const HOT_CALLS: Array<[string, string, unknown?]> = [
  ['POST', '/api/workflow', { name: 'x' }],
  ['GET', '/api/tasks/poll/batch/some_type?count=1&timeout=0'],
  ['POST', '/api/tasks', { taskId: 't', workflowInstanceId: 'w', status: 'COMPLETED' }],
  ['POST', '/api/tasks/update-v2', { taskId: 't', workflowInstanceId: 'w', status: 'COMPLETED' }],
];
const EXPRESS_CALLS: Array<[string, string, unknown?]> = [
  ['GET', '/api/metadata/taskdefs'],
  ['DELETE', '/api/workflow/some-id'],
  ['GET', '/api/admin/config'],
  ['POST', '/api/workflow/some_name', {}],
];

describe('with auth on', () => {
  beforeAll(async () => {
    b = await startAuthBaton({
      BATON_AUTH: 'on',
      BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
      BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
      BATON_AUTH_TOKEN_SECRET: TOKEN_SECRET,
    });
    admin = await tokenFor(b.port, ADMIN_KEY);
  });
  afterAll(async () => {
    await b?.stop();
  });

  describe('without a valid token', () => {
    test('/health and POST /api/token stay open', async () => {
      expect((await raw(b.port, 'GET', '/health')).status).toBe(200);
      expect((await raw(b.port, 'GET', '/api/health')).status).toBe(200);
      expect(admin.split('.')).toHaveLength(3);
    });

    test('every other call is a 401 with a Conductor-style JSON body, the same on the hot path as through express', async () => {
      for (const [method, path, body] of [...HOT_CALLS, ...EXPRESS_CALLS]) {
        const r = await raw(b.port, method, path, { body });
        expect([method, path, r.status, r.headers['content-type']]).toEqual([method, path, 401, 'application/json; charset=utf-8']);
        expect(r.body).toEqual({
          status: 401,
          message: 'Missing token: send the token from POST /api/token in X-Authorization',
          instance: expect.any(String),
          retryable: false,
          code: 'TOKEN_MISSING',
          error: 'INVALID_TOKEN',
        });
      }
      const names = await raw(b.port, 'GET', '/api/metadata/workflowdef/x', { token: admin });
      expect(names.status).toBe(404); // nothing named x was registered by the refused calls
    });

    test('an expired token is a 401 EXPIRED_TOKEN (the SDKs refresh on it); a forged or foreign one INVALID_TOKEN', async () => {
      const key = new TextEncoder().encode(TOKEN_SECRET);
      const past = Math.floor(Date.now() / 1000) - 10;
      const expired = await new SignJWT({ app: 'baton-admin' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('baton')
        .setSubject(ADMIN_KEY.keyId)
        .setIssuedAt(past - 3600)
        .setExpirationTime(past)
        .sign(key);
      const foreign = await new SignJWT({ app: 'baton-admin' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('baton')
        .setSubject(ADMIN_KEY.keyId)
        .setExpirationTime(past + 3600)
        .sign(new TextEncoder().encode('some-other-server-signing-key-0123456789'));
      const [h, p, s] = admin.split('.');
      const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.${s}`;
      for (const [method, path, body] of [...HOT_CALLS, ...EXPRESS_CALLS]) {
        const e = await raw(b.port, method, path, { body, token: expired });
        expect([path, e.status, e.body.error]).toEqual([path, 401, 'EXPIRED_TOKEN']);
        for (const bad of [foreign, tampered, 'garbage']) {
          const r = await raw(b.port, method, path, { body, token: bad });
          expect([path, r.status, r.body.error]).toEqual([path, 401, 'INVALID_TOKEN']);
        }
      }
    });

    test('POST /api/token refuses wrong secrets and unknown keys with a 401 carrying no token error code, and bad bodies with a 400', async () => {
      for (const body of [
        { keyId: ADMIN_KEY.keyId, keySecret: 'not-the-secret' },
        { keyId: 'nobody', keySecret: ADMIN_KEY.keySecret },
      ]) {
        const r = await raw(b.port, 'POST', '/api/token', { body });
        expect(r.status).toBe(401);
        expect(r.body).toMatchObject({ status: 401, retryable: false });
        // EXPIRED_TOKEN/INVALID_TOKEN here would make an SDK refresh its token by calling this very endpoint again.
        expect(r.body.error).toBeUndefined();
        expect(r.text).not.toContain(body.keySecret);
      }
      for (const body of [{}, { keyId: ADMIN_KEY.keyId }, { keyId: 1, keySecret: 2 }, 'text'])
        expect((await raw(b.port, 'POST', '/api/token', { body })).status).toBe(400);
      // A stale X-Authorization on the token call itself is ignored, as the SDKs send one.
      expect((await raw(b.port, 'POST', '/api/token', { body: ADMIN_KEY, token: 'stale' })).status).toBe(200);
    });
  });

  describe('roles', () => {
    test('a WORKER key polls and completes tasks, on the hot path and through express', async () => {
      const w = await appWith(['WORKER']);
      const wf = await started();
      const polled = await raw(b.port, 'GET', `/api/tasks/poll/batch/${wf.type}?count=1&timeout=1000&workerid=w1`, { token: w.token });
      expect(polled.status).toBe(200);
      expect(polled.body).toHaveLength(1);
      const task = polled.body[0];
      const done = await raw(b.port, 'POST', '/api/tasks', {
        token: w.token,
        body: { taskId: task.taskId, workflowInstanceId: wf.id, status: 'COMPLETED', outputData: { ok: true } },
      });
      expect([done.status, done.text]).toEqual([200, task.taskId]);
      const sizes = await raw(b.port, 'GET', `/api/tasks/queue/sizes?taskType=${wf.type}`, { token: w.token });
      expect(sizes.status).toBe(200);
      const status = await raw(b.port, 'GET', `/api/workflow/${wf.id}`, { token: admin });
      expect(status.body.status).toBe('COMPLETED');
    });

    test('a WORKER key cannot terminate a workflow, change a definition, start a workflow or read the configuration: 403, nothing changes', async () => {
      const w = await appWith(['WORKER']);
      const wf = await started();
      const refused: Array<[string, string, unknown?]> = [
        ['DELETE', `/api/workflow/${wf.id}`],
        ['POST', '/api/workflow/bulk/terminate', [wf.id]],
        ['PUT', `/api/workflow/${wf.id}/pause`],
        ['PUT', '/api/metadata/taskdefs', { name: wf.type, retryCount: 9 }],
        ['POST', '/api/metadata/workflowdef', { name: uniqueName('nope'), version: 1, tasks: [{ name: 't', taskReferenceName: 't', type: 'SIMPLE' }] }],
        ['DELETE', `/api/metadata/workflowdef/${wf.name}/1`],
        ['POST', '/api/workflow', { name: wf.name }], // the hot path
        ['GET', '/api/admin/config'],
        ['POST', '/api/applications', { name: 'mine' }],
      ];
      for (const [method, path, body] of refused) {
        const r = await raw(b.port, method, path, { token: w.token, body });
        expect([method, path, r.status]).toEqual([method, path, 403]);
        expect(r.body).toMatchObject({ status: 403, error: 'ACCESS_DENIED', retryable: false });
      }
      expect((await raw(b.port, 'GET', `/api/workflow/${wf.id}`, { token: admin })).body.status).toBe('RUNNING');
      expect((await raw(b.port, 'GET', `/api/metadata/taskdefs/${wf.type}`, { token: admin })).status).toBe(404);
      expect((await raw(b.port, 'GET', `/api/metadata/workflowdef/${wf.name}`, { token: admin })).status).toBe(200);
    });

    test('READ_ONLY reads; WORKFLOW_MANAGER starts and terminates; METADATA_MANAGER defines; no role, no access', async () => {
      const reader = await appWith(['READ_ONLY']);
      const manager = await appWith(['WORKFLOW_MANAGER']);
      const definer = await appWith(['METADATA_MANAGER']);
      const nobody = await appWith([]);
      const wf = await started();
      expect((await raw(b.port, 'GET', `/api/workflow/${wf.id}`, { token: reader.token })).status).toBe(200);
      expect((await raw(b.port, 'DELETE', `/api/workflow/${wf.id}`, { token: reader.token })).status).toBe(403);
      expect((await raw(b.port, 'GET', `/api/workflow/${wf.id}`, { token: nobody.token })).status).toBe(403);
      expect((await raw(b.port, 'GET', '/api/version', { token: nobody.token })).status).toBe(200);
      const again = await raw(b.port, 'POST', '/api/workflow', { token: manager.token, body: { name: wf.name } });
      expect(again.status).toBe(200);
      expect((await raw(b.port, 'DELETE', `/api/workflow/${again.text}`, { token: manager.token })).status).toBe(200);
      expect((await raw(b.port, 'PUT', '/api/metadata/taskdefs', { token: manager.token, body: { name: uniqueName('td') } })).status).toBe(403);
      expect((await raw(b.port, 'PUT', '/api/metadata/taskdefs', { token: definer.token, body: { name: uniqueName('td') } })).status).toBe(200);
      expect((await raw(b.port, 'POST', '/api/workflow', { token: definer.token, body: { name: wf.name } })).status).toBe(403);
    });

    test('disabling a key or taking its role away takes effect on the next call, on both paths', async () => {
      const w = await appWith(['WORKER']);
      const poll = () => raw(b.port, 'GET', '/api/tasks/poll/batch/nothing_here?timeout=0', { token: w.token });
      expect((await poll()).status).toBe(200);
      await raw(b.port, 'DELETE', `/api/applications/${w.appId}/roles/WORKER`, { token: admin });
      expect((await poll()).status).toBe(403);
      await raw(b.port, 'POST', `/api/applications/${w.appId}/roles/WORKER`, { token: admin });
      expect((await poll()).status).toBe(200);
      const toggled = await raw(b.port, 'POST', `/api/applications/${w.appId}/accessKeys/${w.keyId}/status`, { token: admin });
      expect(toggled.body).toEqual({ id: w.keyId, createdAt: expect.any(Number), status: 'INACTIVE' });
      const off = await poll();
      expect([off.status, off.body.error]).toEqual([401, 'INVALID_TOKEN']);
      expect((await raw(b.port, 'GET', '/api/metadata/taskdefs', { token: w.token })).status).toBe(401);
      expect((await raw(b.port, 'POST', '/api/token', { body: { keyId: w.keyId, keySecret: w.keySecret } })).status).toBe(401);
      await raw(b.port, 'DELETE', `/api/applications/${w.appId}`, { token: admin });
      expect((await raw(b.port, 'GET', `/api/applications/${w.appId}`, { token: admin })).status).toBe(404);
    });

    test('GET /api/token/userInfo names the application and its roles', async () => {
      const w = await appWith(['WORKER', 'READ_ONLY']);
      const me = await raw(b.port, 'GET', '/api/token/userInfo', { token: w.token });
      expect(me.body).toEqual({
        id: `app:${w.appId}`,
        name: expect.any(String),
        applicationUser: true,
        roles: [{ name: 'WORKER' }, { name: 'READ_ONLY' }],
        accessKeyId: w.keyId,
      });
    });
  });

  describe('secrets stay secret', () => {
    test('never in logs, error bodies or /api/admin/config; keys are listed without them', async () => {
      const w = await appWith(['WORKER']);
      await raw(b.port, 'POST', '/api/token', { body: { keyId: w.keyId, keySecret: `${w.keySecret}-wrong` } });
      await raw(b.port, 'POST', '/api/token', { body: { keyId: ADMIN_KEY.keyId, keySecret: 'typo-of-the-admin-secret' } });
      const config = await raw(b.port, 'GET', '/api/admin/config', { token: admin });
      expect(config.status).toBe(200);
      expect(config.body.BATON_ADMIN_KEY_ID).toBe(ADMIN_KEY.keyId);
      expect(config.body.BATON_ADMIN_KEY_SECRET).toBe('********');
      expect(config.body.BATON_AUTH_TOKEN_SECRET).toBe('********');
      const keys = await raw(b.port, 'GET', `/api/applications/${w.appId}/accessKeys`, { token: admin });
      expect(keys.body).toEqual([{ id: w.keyId, createdAt: expect.any(Number), status: 'ACTIVE' }]);

      const everything = [...b.logs, config.text, keys.text].join('\n');
      expect(b.logs.length).toBeGreaterThan(0);
      for (const secret of [ADMIN_KEY.keySecret, TOKEN_SECRET, w.keySecret, 'typo-of-the-admin-secret', w.token, admin])
        expect(everything).not.toContain(secret);
    });
  });

  describe('the generated signing key', () => {
    test('is kept in the metadata store: a token of one replica is valid on the next', async () => {
      const env = { BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret };
      const first = await startAuthBaton(env);
      const second = await startAuthBaton({ ...env, BATON_DATA_DIR: first.dataDir });
      try {
        const token = await tokenFor(first.port, ADMIN_KEY);
        expect((await raw(second.port, 'GET', '/api/metadata/taskdefs', { token })).status).toBe(200);
        expect((await raw(b.port, 'GET', '/api/metadata/taskdefs', { token })).status).toBe(401); // another deployment's key
      } finally {
        await second.stop();
        await first.stop();
      }
    });
  });
});

describe('start-up', () => {
  const startError = async (env: Record<string, string>): Promise<Error> => {
    const e = await startAuthBaton(env).then(
      async (s) => {
        await s.stop();
        return undefined;
      },
      (err: Error) => err,
    );
    if (!e) throw new Error('the server started');
    return e;
  };

  test('auth on without an admin key stops the start, naming the variables', async () => {
    const e = await startError({ BATON_AUTH: 'on' });
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toMatch(/BATON_ADMIN_KEY_ID and BATON_ADMIN_KEY_SECRET: required, auth is on \(BATON_AUTH=on\)/);
  });

  test('listening on every address needs auth: an error without keys, a loud warning with BATON_AUTH=off', async () => {
    expect((await startError({ BATON_BIND: '0.0.0.0' })).message).toMatch(
      /BATON_ADMIN_KEY_ID and BATON_ADMIN_KEY_SECRET: required, auth is on \(BATON_BIND=0\.0\.0\.0 is not a loopback address\)/,
    );
    const open = await startAuthBaton({ BATON_BIND: '0.0.0.0', BATON_AUTH: 'off' });
    try {
      const warnings = open.logs.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
      expect(warnings.map((w) => w.msg).join('\n')).toMatch(/AUTHENTICATION IS OFF \(BATON_AUTH=off\) while Baton listens on 0\.0\.0\.0/);
      expect((open.server.httpServer.address() as { address: string }).address).toBe('0.0.0.0');
    } finally {
      await open.stop();
    }
  });

  test('the embedded profile listens on 127.0.0.1 by default, auth off', async () => {
    const s = await startAuthBaton();
    try {
      expect((s.server.httpServer.address() as { address: string }).address).toBe('127.0.0.1');
      expect(s.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'Baton listening')).toMatchObject({ bind: '127.0.0.1', auth: 'off' });
      // Without auth, /api/token is a 404, which the official SDKs read as "no auth on this server".
      const token = await raw(s.port, 'POST', '/api/token', { body: ADMIN_KEY });
      expect([token.status, token.body.message]).toEqual([404, expect.stringContaining('BATON_AUTH=off')]);
    } finally {
      await s.stop();
    }
  });
});

describe('browsers on other origins (auth off, loopback)', () => {
  let open: AuthBaton;
  beforeAll(async () => {
    open = await startAuthBaton({ BATON_CORS_ORIGINS: 'http://ui.example:3000' });
  });
  afterAll(async () => {
    await open?.stop();
  });

  const name = uniqueName('browser_wf');
  const register = () =>
    raw(open.port, 'POST', '/api/metadata/workflowdef', {
      body: { name, version: 1, schemaVersion: 2, tasks: [{ name: 'bt', taskReferenceName: 'bt', type: 'SIMPLE' }] },
    });
  const running = async () => (await raw(open.port, 'GET', `/api/workflow/running/${name}`)).body as string[];

  test('a page of another origin cannot start a workflow or poll (hot path) or register one (express): 403, nothing changes', async () => {
    expect((await register()).status).toBe(200);
    const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    for (const [method, path, body] of [
      ['POST', '/api/workflow', { name }],
      ['POST', `/api/workflow/${name}`, {}],
      ['GET', '/api/tasks/poll/batch/bt?timeout=0'],
      ['POST', '/api/metadata/workflowdef', { name: uniqueName('x'), tasks: [] }],
    ] as const) {
      const r = await raw(open.port, method, path, { body, headers: evil });
      expect([path, r.status, r.body.message]).toEqual([path, 403, expect.stringContaining('BATON_CORS_ORIGINS')]);
    }
    // Same-site pages (another port of localhost) and no-cors requests without Origin are other origins too.
    expect(
      (await raw(open.port, 'POST', '/api/workflow', { body: { name }, headers: { origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' } })).status,
    ).toBe(403);
    expect((await raw(open.port, 'GET', '/api/tasks/poll/batch/bt?timeout=0', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect(await running()).toEqual([]);
  });

  test('an origin in BATON_CORS_ORIGINS gets CORS answers, preflight included', async () => {
    const origin = 'http://ui.example:3000';
    const pre = await raw(open.port, 'OPTIONS', '/api/workflow', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
      'access-control-allow-headers': 'content-type',
      vary: 'Origin',
    });
    const started = await raw(open.port, 'POST', '/api/workflow', { body: { name }, headers: { origin, 'sec-fetch-site': 'cross-site' } });
    expect([started.status, started.headers['access-control-allow-origin']]).toEqual([200, origin]);
    expect(await running()).toEqual([started.text]);
  });

  test('the Host header must name this server while auth is off (DNS rebinding); /health answers any', async () => {
    const before = await running();
    const rebound = await raw(open.port, 'POST', '/api/workflow', { body: { name }, headers: { host: `attacker.example:${open.port}` } });
    expect([rebound.status, rebound.body.message]).toEqual([403, expect.stringContaining('BATON_ALLOWED_HOSTS')]);
    expect((await raw(open.port, 'GET', '/api/metadata/workflowdef', { headers: { host: 'attacker.example' } })).status).toBe(403);
    expect((await raw(open.port, 'GET', '/health', { headers: { host: '10.0.0.7:8080' } })).status).toBe(200);
    expect((await raw(open.port, 'GET', '/api/metadata/workflowdef', { headers: { host: `localhost:${open.port}` } })).status).toBe(200);
    await eventually(async () => (await running()).length === before.length);
  });
});
