import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, taskOf, type TaskView } from '../support/api-client';
import { call, eventually, startBaton, type TestBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// The guarded HTTP task over the real API: where it may connect, how much it may read, how long it
// may take, and how many calls one host may hold. Every target is a local server.

interface Target {
  url: string;
  port: number;
  requests: string[];
  /** Requests being answered right now, and the most at once. */
  open: number;
  maxOpen: number;
  close(): Promise<void>;
}

async function target(handler: (req: http.IncomingMessage, res: http.ServerResponse, t: Target) => void): Promise<Target> {
  const t = { requests: [] as string[], open: 0, maxOpen: 0 } as unknown as Target;
  const server = http.createServer((req, res) => {
    t.requests.push(`${req.method} ${req.url}`);
    t.open++;
    t.maxOpen = Math.max(t.maxOpen, t.open);
    res.on('close', () => t.open--);
    res.setHeader('content-type', 'application/json');
    handler(req, res, t);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.port = (server.address() as AddressInfo).port;
  t.url = `http://127.0.0.1:${t.port}`;
  t.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return t;
}

/** A workflow of one HTTP task (reference `call`) with `httpRequest`, started once; answers its id. */
async function runHttp(b: TestBaton, httpRequest: Record<string, unknown>, name = uniqueName('guard')): Promise<string> {
  const api = apiClient(b);
  await api.register({ name, tasks: [{ name: 'call', taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request: httpRequest } }] });
  return api.start(name);
}

/** The HTTP task once it is terminal. */
function settled(b: TestBaton, id: string, limitMs = 20_000): Promise<TaskView> {
  return apiClient(b).waitForTask(id, 'call', ['COMPLETED', 'FAILED', 'TIMED_OUT'], limitMs);
}

describe('egress policy, default (no allow list)', () => {
  let b: TestBaton;
  let t: Target;
  beforeAll(async () => {
    b = await startBaton({ BATON_HTTP_TASK_ALLOW: '' });
    t = await target((_req, res) => res.end('{"secret":true}'));
  });
  afterAll(async () => {
    await t.close();
    await b.stop();
  });

  test('a loopback server is refused and never sees a request', async () => {
    const task = await settled(b, await runHttp(b, { uri: `${t.url}/data`, method: 'GET' }));
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toMatch(
      /^Failed to invoke HTTP task due to: EgressRefusedError: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address: refused unless BATON_HTTP_TASK_ALLOW lists it/,
    );
    expect(JSON.stringify(task.outputData)).not.toContain('secret');
    expect(t.requests).toEqual([]);
  });

  test('a name is judged by the address it resolves to: localhost is loopback', async () => {
    const task = await settled(b, await runHttp(b, { uri: `http://localhost:${t.port}/data`, method: 'GET' }));
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(t.requests).toEqual([]);
  });

  test.each([
    ['http://169.254.169.254/latest/meta-data/iam/', 'linkLocal'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://100.64.0.1/', 'carrierGradeNat'],
    ['http://[fd00::1]/', 'uniqueLocal'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://0.0.0.0:PORT/', 'unspecified'],
    ['http://[::ffff:127.0.0.1]:PORT/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/', 'linkLocal'],
    ['http://2130706433:PORT/', 'loopback'],
  ])('%s is refused as %s', async (uri, range) => {
    const task = await settled(b, await runHttp(b, { uri: uri.replace('PORT', String(t.port)), method: 'GET' }));
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toContain(`a ${range} address`);
    expect(t.requests).toEqual([]);
  });
});

describe('egress policy with loopback allowed (as in the test harness)', () => {
  let b: TestBaton;
  let t: Target;
  beforeAll(async () => {
    b = await startBaton({ BATON_HTTP_TASK_ALLOW: '127.0.0.1', BATON_HTTP_TASK_MAX_REDIRECTS: '3' });
    t = await target((req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/redirect') res.writeHead(302, { location: u.searchParams.get('to')! }).end();
      else if (u.pathname === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else res.end(JSON.stringify({ path: u.pathname }));
    });
  });
  afterAll(async () => {
    await t.close();
    await b.stop();
  });

  test("Baton's own /api/admin/config is refused", async () => {
    const task = await settled(b, await runHttp(b, { uri: `${b.url}/api/admin/config`, method: 'GET' }));
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toContain(`127.0.0.1:${b.server.port} (127.0.0.1) is Baton itself`);
    expect(task.outputData.response).toBeUndefined();
    expect(JSON.stringify(task)).not.toContain('BATON_DATA_DIR');
  });

  test("a redirect to Baton's own port, by another name, is refused at that hop", async () => {
    const to = `http://localhost:${b.server.port}/api/admin/config`;
    const task = await settled(b, await runHttp(b, { uri: `${t.url}/redirect?to=${encodeURIComponent(to)}`, method: 'GET' }));
    expect(task.status).toBe('FAILED');
    // localhost may resolve to ::1 first (not allowed) and then 127.0.0.1 (Baton itself): refused either way.
    expect(task.reasonForIncompletion).toMatch(/is Baton itself|localhost resolves to ::1/);
    expect(t.requests).toContain(`GET /redirect?to=${encodeURIComponent(to)}`);
  });

  test('a redirect to the metadata address is refused after the allowed hop', async () => {
    const task = await settled(b, await runHttp(b, { uri: `${t.url}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/')}`, method: 'GET' }));
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toContain('169.254.169.254 resolves to 169.254.169.254, a linkLocal address');
  });

  test('redirects are followed, limited in number, and can be turned off per task', async () => {
    const followed = await settled(b, await runHttp(b, { uri: `${t.url}/redirect?to=%2Fdone`, method: 'GET' }));
    expect(followed).toMatchObject({ status: 'COMPLETED', outputData: { response: { statusCode: 200, body: { path: '/done' } } } });
    const looping = await settled(b, await runHttp(b, { uri: `${t.url}/loop`, method: 'GET' }));
    expect(looping.status).toBe('FAILED');
    expect(looping.reasonForIncompletion).toContain('more than 3 redirects');
    const off = await settled(b, await runHttp(b, { uri: `${t.url}/redirect?to=%2Fdone`, method: 'GET', followRedirects: false }));
    expect(off.status).toBe('FAILED');
    expect(off.reasonForIncompletion).toMatch(/^Failed to invoke HTTP task due to: 302 Found/);
  });

  test('non-2xx keeps failing the task with the status in the reason', async () => {
    const s = await target((_req, res) => res.writeHead(418).end('teapot'));
    try {
      const task = await settled(b, await runHttp(b, { uri: `${s.url}/`, method: 'GET' }));
      expect(task).toMatchObject({
        status: 'FAILED',
        reasonForIncompletion: "Failed to invoke HTTP task due to: 418 I'm a Teapot: teapot",
        outputData: { response: { statusCode: 418 } },
      });
    } finally {
      await s.close();
    }
  });
});

test('the deny list refuses what the allow list lets through', async () => {
  const b = await startBaton({ BATON_HTTP_TASK_ALLOW: '127.0.0.0/8', BATON_HTTP_TASK_DENY: '127.0.0.1' });
  const t = await target((_req, res) => res.end('ok'));
  try {
    const task = await settled(b, await runHttp(b, { uri: `${t.url}/`, method: 'GET' }));
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toContain('denied by BATON_HTTP_TASK_DENY entry 127.0.0.1');
    expect(t.requests).toEqual([]);
  } finally {
    await t.close();
    await b.stop();
  }
});

test('a bad allow-list entry stops the start, naming the variable', async () => {
  await expect(startBaton({ BATON_HTTP_TASK_ALLOW: '10.0.0.0/33' })).rejects.toThrow(/BATON_HTTP_TASK_ALLOW: "10\.0\.0\.0\/33" is not a CIDR range/);
});

test('a 200 MB response fails the task with the reason, and memory stays flat', async () => {
  const total = 200 * 1024 * 1024;
  let written = 0;
  const t = await target((_req, res) => {
    const chunk = Buffer.alloc(256 * 1024, 'x');
    res.writeHead(200, { 'content-type': 'application/json' });
    const pump = (): void => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  const b = await startBaton({ BATON_HTTP_TASK_MAX_RESPONSE_BYTES: String(2 * 1024 * 1024) });
  try {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const task = await settled(b, await runHttp(b, { uri: `${t.url}/huge`, method: 'GET', readTimeOut: 30 }), 60_000);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(task.status).toBe('FAILED');
    expect(task.reasonForIncompletion).toBe(
      'Failed to invoke HTTP task due to: response body is larger than 2097152 bytes (BATON_HTTP_TASK_MAX_RESPONSE_BYTES)',
    );
    expect(task.outputData.response).toMatchObject({ statusCode: 200 });
    expect(task.outputData.response.body).toBeUndefined();
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    // The body was never read to its end: the connection was cut soon after the cap.
    expect(written).toBeLessThan(total / 2);
  } finally {
    await t.close();
    await b.stop();
  }
}, 120_000);

describe('timeouts', () => {
  let b: TestBaton;
  beforeAll(async () => {
    b = await startBaton({ BATON_HTTP_TASK_MAX_TIMEOUT_MS: '500' });
  });
  afterAll(() => b.stop());

  const httpDef = (name: string, http_request: Record<string, unknown>) => ({
    name,
    version: 1,
    tasks: [{ name: 'call', taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request } }],
  });

  test('a bad timeout is a 400 at registration, at update, and at start with an inline definition', async () => {
    const name = uniqueName('badtimeout');
    const reg = await call(b.url, 'POST', '/api/metadata/workflow', httpDef(name, { uri: 'http://example.com', method: 'GET', readTimeOut: 'soon' }));
    expect(reg.status).toBe(400);
    expect(JSON.stringify(reg.body.validationErrors)).toMatch(/http_request\.readTimeOut must be a number of seconds .*\\"soon\\" for task: call/);
    expect((await call(b.url, 'GET', `/api/metadata/workflow/${name}`)).status).toBe(404);
    const upd = await call(b.url, 'PUT', '/api/metadata/workflow', [httpDef(name, { uri: 'http://example.com', method: 'GET', connectionTimeOut: -1 })]);
    expect(upd.status).toBe(400);
    const start = await call(b.url, 'POST', '/api/workflow', {
      name,
      workflowDef: httpDef(name, { uri: 'http://example.com', method: 'GET', connectionTimeOut: 'x' }),
    });
    expect(start.status).toBe(400);
    expect(JSON.stringify(start.body)).toContain('connectionTimeOut must be');
    const td = await call(b.url, 'POST', '/api/metadata/taskdefs', [
      { name: uniqueName('td'), inputTemplate: { http_request: { uri: 'http://example.com', method: 'GET', readTimeOut: [] } } },
    ]);
    expect(td.status).toBe(400);
  });

  test('timeouts above BATON_HTTP_TASK_MAX_TIMEOUT_MS are capped', async () => {
    const hang = await target(() => undefined);
    try {
      const started = Date.now();
      const task = await settled(b, await runHttp(b, { uri: `${hang.url}/hang`, method: 'GET', connectionTimeOut: 120, readTimeOut: 120 }), 15_000);
      expect(task.status).toBe('FAILED');
      expect(task.reasonForIncompletion).toMatch(/Headers Timeout|no complete response within 1000 ms/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await hang.close();
    }
  });
});

test('a lost HTTP call (its worker died mid-call) times out and is retried, not IN_PROGRESS forever', async () => {
  // No HTTP workers here: the test plays the worker that polls the task and then dies.
  const b = await startBaton({ BATON_HTTP_TASK_WORKERS: '0' });
  try {
    const name = uniqueName('lost');
    const api = apiClient(b);
    await api.registerTaskDefs([{ name, responseTimeoutSeconds: 1, retryCount: 1, retryDelaySeconds: 0 }]);
    await api.register({
      name,
      tasks: [{ name, taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request: { uri: 'http://example.com', method: 'GET' } } }],
    });
    const id = await api.start(name);
    const polled = await eventually(async () => (await call(b.url, 'GET', '/api/tasks/poll/HTTP?workerid=doomed')).body || undefined);
    expect(polled).toMatchObject({ workflowInstanceId: id, taskType: 'HTTP', status: 'IN_PROGRESS' });
    const tasks = await eventually(async () => {
      const wf = await api.workflow(id);
      return wf.tasks.length === 2 ? wf.tasks : undefined;
    }, 15_000);
    expect(tasks.map((t) => [t.taskType, t.status])).toEqual([
      ['HTTP', 'TIMED_OUT'],
      ['HTTP', 'SCHEDULED'],
    ]);
    expect(tasks[0].reasonForIncompletion).toMatch(/^responseTimeout: 1 exceeded/);
  } finally {
    await b.stop();
  }
});

test('a call longer than the response timeout completes: the worker heartbeats while it runs', async () => {
  const slow = await target((_req, res) => void setTimeout(() => res.end('{"late":true}'), 4000));
  const b = await startBaton();
  try {
    const name = uniqueName('heartbeat');
    const api = apiClient(b);
    await api.registerTaskDefs([{ name, responseTimeoutSeconds: 2, retryCount: 0 }]);
    await api.register({
      name,
      tasks: [{ name, taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request: { uri: `${slow.url}/`, method: 'GET', readTimeOut: 10 } } }],
    });
    const id = await api.start(name);
    const task = await settled(b, id);
    expect(task).toMatchObject({ status: 'COMPLETED', outputData: { response: { body: { late: true } } } });
    expect((await api.workflow(id)).tasks).toHaveLength(1);
  } finally {
    await slow.close();
    await b.stop();
  }
});

test('a slow host cannot take every HTTP worker: per-host concurrency', async () => {
  const held: http.ServerResponse[] = [];
  const slow = await target((_req, res) => void held.push(res));
  const fast = await target((_req, res) => res.end('{"fast":true}'));
  const b = await startBaton({ BATON_HTTP_TASK_WORKERS: '4', BATON_HTTP_TASK_PER_HOST: '2' });
  try {
    const slowIds = await Promise.all([1, 2, 3, 4, 5].map(() => runHttp(b, { uri: `${slow.url}/slow`, method: 'GET', readTimeOut: 30 })));
    await eventually(async () => slow.open === 2);
    const fastTask = await settled(b, await runHttp(b, { uri: `${fast.url}/fast`, method: 'GET' }), 15_000);
    expect(fastTask).toMatchObject({ status: 'COMPLETED', outputData: { response: { body: { fast: true } } } });
    // Two loops are free, yet the slow host never gets a third call at once.
    await new Promise((r) => setTimeout(r, 1500));
    expect(slow.maxOpen).toBe(2);
    expect(slow.requests).toHaveLength(2);
    // The held-back tasks are claimed and wait in the host's queue on the worker, without a call.
    const waiting = await Promise.all(slowIds.map(async (id) => taskOf(await apiClient(b).workflow(id), 'call')));
    expect(waiting.map((t) => t.status)).toEqual(['IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS']);
    // As the host answers, the rest go through, two at a time.
    const release = setInterval(() => held.splice(0).forEach((r) => r.end('{}')), 100);
    try {
      for (const id of slowIds) expect((await settled(b, id)).status).toBe('COMPLETED');
    } finally {
      clearInterval(release);
    }
    expect(slow.requests).toHaveLength(5);
    expect(slow.maxOpen).toBe(2);
  } finally {
    await slow.close();
    await fast.close();
    await b.stop();
  }
});
