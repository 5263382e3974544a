import type { IncomingMessage, ServerResponse } from 'node:http';
import { allRouteTemplates } from '../../src/api/routes';
import { routeLabelOf } from '../../src/api/route-label';
import { decisionOf } from '../../src/auth/request-gate';
import { RoutePermissions } from '../../src/auth/route-permissions';
import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { uniqueName } from '../support/names';
import { sendRequestLine, type RawLineReply } from '../support/raw-request-line';
import { targetSpellings, type Spelling } from '../support/target-spellings';

// With auth on, the permission the gate decides for a request is the permission of the route that
// runs, however the request line spells the path: every route of the route table (the hot path's
// included) in many spellings sent as raw request lines. Each answer is either a refusal with a
// JSON body and no handler run, or the handler of a route needing exactly what the gate decided.

const table = new RoutePermissions();
type Seen = { label: string; decision: string | undefined };
const seen = new Map<string, Seen>();
const waiting = new Map<string, (s: Seen) => void>();
let probes = 0;

let b: AuthBaton;
let host: string;
let admin: string;
const tokens: Record<string, string | undefined> = {};

const record = (req: IncomingMessage, res: ServerResponse): void => {
  const id = req.headers['x-probe'];
  if (typeof id !== 'string') return;
  res.once('close', () => {
    const s = { label: routeLabelOf(req), decision: decisionOf(req) };
    const w = waiting.get(id);
    if (w) w(s);
    else seen.set(id, s);
  });
};
const seenOf = (id: string): Promise<Seen> => {
  const s = seen.get(id);
  return s ? Promise.resolve(s) : new Promise((resolve) => waiting.set(id, resolve));
};

interface Probe {
  method: string;
  target: string;
  kind: string;
  reply: RawLineReply;
  seen?: Seen;
}

/** A JSON answer (a HEAD answer has its type but no body). */
const isJson = (reply: RawLineReply): boolean => reply.json !== undefined || (reply.text === '' && (reply.headers['content-type'] ?? '').includes('json'));

async function probe(method: string, s: Spelling, token: string | undefined): Promise<Probe> {
  const id = String(++probes);
  const body = method === 'POST' || method === 'PUT' ? '{}' : undefined;
  const headers: Record<string, string> = {
    'X-Probe': id,
    ...(body ? { 'Content-Type': 'application/json' } : {}),
    ...(token ? { 'X-Authorization': token } : {}),
  };
  const reply = await sendRequestLine(b.port, { method, target: s.target, headers, body });
  // Node's own parser refuses some lines before any handler (and says so without a JSON body).
  const reached = !(reply.hung || (reply.status === 400 && !isJson(reply)));
  return { method, target: s.target, kind: s.kind, reply, seen: reached ? await seenOf(id) : undefined };
}

/** Why the answer breaks the property, or undefined when it holds. */
function violation(p: Probe): string | undefined {
  const { reply, seen: s } = p;
  if (reply.hung) return 'no answer';
  if (!s) return `answered ${reply.status} before any handler, without a JSON body`;
  if (reply.status >= 500) return `answered ${reply.status}`;
  if (s.label !== 'unmatched') {
    const needs = table.rule(p.method, s.label);
    return needs === s.decision ? undefined : `route ${s.label} (needs ${needs}) ran after the gate decided ${s.decision}`;
  }
  if ([400, 401, 403, 404, 405].includes(reply.status)) return isJson(reply) ? undefined : `${reply.status} without a JSON body`;
  // The console's page: open to all, and only where the gate decided so.
  if (
    reply.status < 300 &&
    (p.method === 'GET' || p.method === 'HEAD') &&
    s.decision === 'public' &&
    (reply.headers['content-type'] ?? '').startsWith('text/html')
  )
    return undefined;
  return `answered ${reply.status} with no route, the gate having decided ${s.decision}`;
}

const describeProbe = (p: Probe): string =>
  `${p.method} ${JSON.stringify(p.target)} (${p.kind}): ${violation(p)} [${p.reply.status} ${p.reply.text.slice(0, 120)}]`;

async function inPool<T, R>(items: readonly T[], width: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}

async function tokenWith(roles: string[]): Promise<string> {
  const app = await raw(b.port, 'POST', '/api/applications', { token: admin, body: { name: uniqueName('app') } });
  for (const role of roles) expect((await raw(b.port, 'POST', `/api/applications/${app.body.id}/roles/${role}`, { token: admin })).status).toBe(200);
  const key = await raw(b.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
  return tokenFor(b.port, { keyId: key.body.id, keySecret: key.body.secret });
}

beforeAll(async () => {
  b = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
  b.server.httpServer.prependListener('request', record);
  host = `127.0.0.1:${b.port}`;
  admin = await tokenFor(b.port, ADMIN_KEY);
  tokens.none = undefined;
  tokens.READ_ONLY = await tokenWith(['READ_ONLY']);
  tokens.WORKER = await tokenWith(['WORKER']);
  tokens.METADATA_MANAGER = await tokenWith(['METADATA_MANAGER']);
});
afterAll(async () => {
  b.server.httpServer.removeListener('request', record);
  await b?.stop();
});

// Spellings every route gets; the others rotate over the routes, keeping the run to a few thousand requests.
const CORE = new Set([
  'as declared',
  'absolute-form, own host',
  'fragment naming a tags path',
  'backslash and a fragment',
  'upper case',
  'trailing slash',
  '; parameter on the last segment',
  'doubled slash inside',
]);
const ROTATING_PER_ROUTE = 5;

test('every route in every spelling: the route that runs needs exactly what the gate decided (admin token, so the gate lets all through)', async () => {
  const routes = allRouteTemplates();
  const concrete = (r: (typeof routes)[number]): string => r.path.replace(/\{([^}]+)\}/g, (_m, name: string) => r.pathEnums[name]?.[0] ?? 'v1');
  const cases = routes.flatMap((r, i) => {
    const all = targetSpellings(concrete(r), host);
    const extra = all.filter((s) => !CORE.has(s.kind));
    const picked = new Set(Array.from({ length: ROTATING_PER_ROUTE }, (_, k) => extra[(i * ROTATING_PER_ROUTE + k) % extra.length]!.kind));
    return all.filter((s) => CORE.has(s.kind) || picked.has(s.kind)).map((s) => ({ method: r.method.toUpperCase(), s }));
  });
  expect(cases.length).toBeLessThan(3500);
  const results = await inPool(cases, 6, ({ method, s }) => probe(method, s, admin));
  expect(results.filter((p) => violation(p) !== undefined).map(describeProbe)).toEqual([]);
  // The spellings reached the routes: each route's own spelling ran a handler.
  expect(results.filter((p) => p.kind === 'as declared' && p.seen?.label === 'unmatched').map((p) => `${p.method} ${p.target}`)).toEqual([]);
  // The server still serves.
  expect((await raw(b.port, 'GET', '/health')).status).toBe(200);
}, 120_000);

describe('the findings, per role', () => {
  let secret: string;
  const VALUE = 'finding-secret-value-7f3a';
  beforeAll(async () => {
    secret = uniqueName('edge_secret');
    expect((await raw(b.port, 'PUT', `/api/secrets/${secret}`, { token: admin, body: VALUE })).status).toBe(200);
  });

  /** Each role's request is refused (no role here is an admin) with a JSON body, no handler having run and no value answered. */
  const deniedToEveryRole = async (method: string, target: string, status: number | 'by role', roles = Object.keys(tokens)): Promise<void> => {
    const rows: unknown[] = [];
    const expected: unknown[] = [];
    for (const role of roles) {
      const p = await probe(method, { kind: 'finding', target }, tokens[role]);
      rows.push([role, target, p.seen?.label, p.reply.text.includes(VALUE), p.reply.status, isJson(p.reply)]);
      expected.push([role, target, 'unmatched', false, status === 'by role' ? (role === 'none' ? 401 : 403) : status, true]);
    }
    expect(rows).toEqual(expected);
  };

  test('absolute-form reaches no API route past the gate: another host is a 400, this host the route behind its permission', async () => {
    const paths: Array<[string, string, string[]?]> = [
      ['GET', `/api/secrets/${secret}`],
      ['GET', '/api/admin/config'],
      ['GET', '/api/workflow/wf-1', ['none', 'WORKER']],
      ['GET', '/api/applications'],
      ['GET', '/api/scheduler/admin/pause'],
      ['PUT', '/api/scheduler/admin/pause'],
    ];
    for (const [method, path, roles] of paths) {
      await deniedToEveryRole(method, `http://other.invalid${path}`, 400, roles);
      await deniedToEveryRole(method, `http://${host}${path}`, 'by role', roles);
    }
    // Naming the server as its Host header does, the path is the route's, for those the route admits.
    const asAdmin = await probe('GET', { kind: 'finding', target: `http://${host}/api/secrets/${secret}` }, admin);
    expect([asAdmin.reply.status, asAdmin.reply.text, asAdmin.seen?.label, asAdmin.seen?.decision]).toEqual([200, VALUE, '/api/secrets/{key}', 'admin']);
  });

  test("a fragment does not make a secret's value read as its tags", async () => {
    await deniedToEveryRole('GET', `/api/secrets/${secret}#/tags`, 400);
    await deniedToEveryRole('HEAD', `/api/secrets/${secret}#/tags`, 400);
    const tags = await probe('GET', { kind: 'finding', target: `/api/secrets/${secret}/tags` }, tokens.READ_ONLY);
    expect([tags.reply.status, tags.seen?.label]).toEqual([200, '/api/secrets/{key}/tags']);
  });

  test("the Dapr app channel's and the console's paths lead to no API route", async () => {
    for (const target of [
      `/dapr/../api/secrets/${secret}`,
      `/actors/x/../../api/secrets/${secret}`,
      `/actors%2f..%2fapi/secrets/${secret}`,
      `/actors/%2e%2e/api/secrets/${secret}`,
      `/healthz/../api/secrets/${secret}`,
      `/executions/..%2f..%2fapi/secrets/${secret}`,
      `/executions/%2e%2e/%2e%2e/api/secrets/${secret}`,
    ])
      await deniedToEveryRole('GET', target, 400);
    // The app channel keeps %2F inside its segments (daprd's escapes); it never reaches the API routes.
    const p = await probe('GET', { kind: 'finding', target: `/actors/x%2Fy%2Fapi%2Fsecrets%2F${secret}` }, undefined);
    expect([p.reply.status, p.seen?.label, p.seen?.decision, p.reply.text.includes(VALUE)]).toEqual([404, 'unmatched', 'app-channel', false]);
    await deniedToEveryRole('GET', `/actors/x%2F..%2F..%2Fapi%2Fsecrets%2F${secret}`, 400);
  });

  test('a backslash does not make a read of a task a poll that claims it', async () => {
    const type = uniqueName('edge_task');
    const wf = uniqueName('edge_wf');
    expect((await raw(b.port, 'POST', '/api/metadata/taskdefs', { token: admin, body: [{ name: type, ownerEmail: 'a@b.c' }] })).status).toBe(200);
    expect(
      (
        await raw(b.port, 'POST', '/api/metadata/workflow', {
          token: admin,
          body: { name: wf, version: 1, ownerEmail: 'a@b.c', tasks: [{ name: type, taskReferenceName: 't', type: 'SIMPLE' }] },
        })
      ).status,
    ).toBe(200);
    const started = await raw(b.port, 'POST', '/api/workflow', { token: admin, body: { name: wf, version: 1 } });
    expect(started.status).toBe(200);
    for (const target of [`/api/tasks/poll\\${type}#`, `/api/tasks/poll\\${type}`, `/api/tasks/poll/batch\\${type}#`])
      await deniedToEveryRole('GET', target, 400);
    // Still there for a worker: nothing claimed it.
    const polled = await raw(b.port, 'GET', `/api/tasks/poll/batch/${type}?timeout=2000`, { token: tokens.WORKER });
    expect([polled.status, polled.body.map((t: { workflowInstanceId: string }) => t.workflowInstanceId)]).toEqual([200, [started.body]]);
  });
});
