import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient } from '../support/api-client';
import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { uniqueName } from '../support/names';

// Secrets with auth on: only an admin reads a value; names and tags follow the definitions
// permissions; and no log line (kept at trace level) ever holds a value, even while tasks use it.

let b: AuthBaton;
let admin: string;
const asAdmin = apiClient(() => b.url, { headers: () => ({ 'x-authorization': admin }) });

async function tokenWith(roles: string[]): Promise<string> {
  const app = await raw(b.port, 'POST', '/api/applications', { token: admin, body: { name: uniqueName('app') } });
  for (const role of roles) expect((await raw(b.port, 'POST', `/api/applications/${app.body.id}/roles/${role}`, { token: admin })).status).toBe(200);
  const key = await raw(b.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
  return tokenFor(b.port, { keyId: key.body.id, keySecret: key.body.secret });
}

const received: string[] = [];
const endpoint = http.createServer((req, res) => {
  received.push(String(req.headers['x-secret']));
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});

beforeAll(async () => {
  b = await startAuthBaton({
    BATON_AUTH: 'on',
    BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
    BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
    BATON_HTTP_TASK_ALLOW: '127.0.0.1',
  });
  admin = await tokenFor(b.port, ADMIN_KEY);
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', () => r()));
});
afterAll(async () => {
  await b?.stop();
  await new Promise((r) => endpoint.close(r));
});

test('only ADMIN reads a value; METADATA_MANAGER writes; readers see names and tags; a WORKER none of it', async () => {
  const name = uniqueName('guarded');
  const definer = await tokenWith(['METADATA_MANAGER']);
  const reader = await tokenWith(['READ_ONLY']);
  const worker = await tokenWith(['WORKER']);
  expect((await raw(b.port, 'PUT', `/api/secrets/${name}`, { token: definer, body: 'v-1' })).status).toBe(200);
  expect((await raw(b.port, 'PUT', `/api/secrets/${name}`, { token: reader, body: 'v-2' })).status).toBe(403);
  for (const token of [definer, reader, worker]) expect((await raw(b.port, 'GET', `/api/secrets/${name}`, { token })).status).toBe(403);
  const got = await raw(b.port, 'GET', `/api/secrets/${name}`, { token: admin });
  expect([got.status, got.body]).toEqual([200, 'v-1']);
  expect((await raw(b.port, 'GET', '/api/secrets', { token: reader })).body).toContain(name);
  expect((await raw(b.port, 'GET', `/api/secrets/${name}/exists`, { token: reader })).body).toBe(true);
  expect((await raw(b.port, 'GET', `/api/secrets/${name}/tags`, { token: reader })).status).toBe(200);
  expect((await raw(b.port, 'GET', '/api/secrets', { token: worker })).status).toBe(403);
  expect((await raw(b.port, 'DELETE', `/api/secrets/${name}`, { token: reader })).status).toBe(403);
  expect((await raw(b.port, 'DELETE', `/api/secrets/${name}`, { token: definer })).status).toBe(200);
});

test('no log line holds a value: not when stored, read, or used by an HTTP task', async () => {
  const value = `log-probe-${Date.now()}-z`;
  const secret = uniqueName('logged');
  expect((await raw(b.port, 'PUT', `/api/secrets/${secret}`, { token: admin, body: value })).status).toBe(200);
  expect((await raw(b.port, 'GET', `/api/secrets/${secret}`, { token: admin })).body).toBe(value);
  const name = uniqueName('log_wf');
  const uri = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/x`;
  await asAdmin.register({
    name,
    tasks: [
      {
        name: 'call',
        taskReferenceName: 'call',
        type: 'HTTP',
        inputParameters: { http_request: { uri, method: 'GET', headers: { 'X-Secret': `\${workflow.secrets.${secret}}` } } },
      },
    ],
  });
  const id = await asAdmin.start(name);
  await asAdmin.waitForStatus(id, 'COMPLETED');
  expect(received).toContain(value);
  expect(b.logs.length).toBeGreaterThan(0);
  expect(b.logs.filter((l) => l.includes(value))).toEqual([]);
});
