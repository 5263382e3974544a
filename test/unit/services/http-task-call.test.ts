import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { checkDestination, checkName, parseEgressRules, type EgressPolicy } from '../../../src/services/http-task/egress-policy';
import { performCall, type CallRequest } from '../../../src/services/http-task/http-call';

// The call itself against local servers: resolved-address checks, redirects, size cap, timeouts.

interface Seen {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  remote: string;
}

let server: http.Server;
let port: number;
const seen: Seen[] = [];
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end('ok');

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, remote: req.socket.remoteAddress ?? '' });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  seen.length = 0;
});

const loopbackAllowed: EgressPolicy = { allow: parseEgressRules('127.0.0.1'), deny: [], ownPorts: [], localAddresses: [] };
const request = (url: string, over: Partial<CallRequest> = {}): CallRequest => ({
  url,
  method: 'GET',
  headers: {},
  connectTimeoutMs: 2000,
  readTimeoutMs: 2000,
  maxRedirects: 5,
  ...over,
});
const deps = (policy: EgressPolicy = loopbackAllowed, over: Record<string, unknown> = {}) => ({
  check: (d: Parameters<typeof checkDestination>[1]) => checkDestination(policy, d),
  maxResponseBytes: 1024 * 1024,
  ...over,
});

describe('destination checks on the resolved address', () => {
  test('a name the policy refuses unresolved costs no DNS query', async () => {
    const policy: EgressPolicy = { allow: parseEgressRules('api.example.com'), deny: [], ownPorts: [], localAddresses: [], listedOnly: true };
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return ['127.0.0.1'];
    };
    const out = await performCall(request(`http://httpbin:${port}/get`), deps(policy, { resolve, checkName: (h: string) => checkName(policy, h) }));
    expect(out).toEqual({ kind: 'failure', reason: expect.stringContaining('httpbin is not listed in BATON_HTTP_TASK_ALLOW') });
    expect(asked).toEqual([]);
    expect(seen).toEqual([]);
  });

  test('a name is resolved once and the socket goes to the address that was checked', async () => {
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return ['10.1.2.3', '127.0.0.1']; // the first is refused, the second allowed
    };
    const out = await performCall(request(`http://service.test:${port}/x`), deps(loopbackAllowed, { resolve }));
    expect(out).toMatchObject({ kind: 'response', status: 200, text: 'ok' });
    expect(asked).toEqual(['service.test']);
    expect(seen).toEqual([expect.objectContaining({ path: '/x', remote: '127.0.0.1', headers: expect.objectContaining({ host: `service.test:${port}` }) })]);
  });

  test('a name whose every address is refused is never connected to', async () => {
    const out = await performCall(request(`http://metadata.test:${port}/latest`), deps(loopbackAllowed, { resolve: async () => ['169.254.169.254'] }));
    expect(out).toEqual({ kind: 'failure', reason: expect.stringContaining('metadata.test resolves to 169.254.169.254, a linkLocal address') });
    expect(seen).toEqual([]);
  });

  test('the default policy refuses loopback literals and names alike', async () => {
    const none: EgressPolicy = { allow: [], deny: [], ownPorts: [], localAddresses: [] };
    expect(await performCall(request(`http://127.0.0.1:${port}/`), deps(none))).toEqual({
      kind: 'failure',
      reason: expect.stringContaining('a loopback address'),
    });
    expect(await performCall(request(`http://[::ffff:127.0.0.1]:${port}/`), deps(none))).toEqual({
      kind: 'failure',
      reason: expect.stringContaining('a loopback address'),
    });
    expect(await performCall(request(`http://2130706433:${port}/`), deps(none))).toEqual({ kind: 'failure', reason: expect.stringContaining('127.0.0.1') });
    expect(await performCall(request(`http://localhost:${port}/`), deps(none))).toEqual({
      kind: 'failure',
      reason: expect.stringContaining('a loopback address'),
    });
    expect(seen).toEqual([]);
  });

  test('resolution slower than the connect timeout fails the call', async () => {
    const out = await performCall(
      request(`http://slow-dns.test:${port}/`, { connectTimeoutMs: 200 }),
      deps(loopbackAllowed, { resolve: () => new Promise<string[]>(() => undefined) }),
    );
    expect(out).toEqual({ kind: 'failure', reason: expect.stringMatching(/resolving slow-dns.test took longer than 200 ms|no complete response/) });
  });

  test('only http and https', async () => {
    expect(await performCall(request('file:///etc/passwd'), deps())).toEqual({ kind: 'failure', reason: 'unsupported URI scheme file: (http and https only)' });
  });
});

describe('redirects', () => {
  test('followed, each hop checked again: a redirect to a refused address fails the call', async () => {
    handler = (req, res) => {
      if (req.url === '/to-private') res.writeHead(302, { location: 'http://internal.test/secret' }).end();
      else res.end('ok');
    };
    const out = await performCall(request(`http://127.0.0.1:${port}/to-private`), deps(loopbackAllowed, { resolve: async () => ['10.0.0.7'] }));
    expect(out).toEqual({ kind: 'failure', reason: expect.stringContaining('internal.test resolves to 10.0.0.7, a private address') });
    expect(seen.map((s) => s.path)).toEqual(['/to-private']);
  });

  test("a redirect to Baton's own port is refused", async () => {
    const baton = http.createServer((_req, res) => res.end('{"secret":"config"}'));
    await new Promise<void>((r) => baton.listen(0, '127.0.0.1', () => r()));
    const batonPort = (baton.address() as AddressInfo).port;
    try {
      handler = (_req, res) => void res.writeHead(307, { location: `http://localhost:${batonPort}/api/admin/config` }).end();
      const own: EgressPolicy = { allow: parseEgressRules('127.0.0.0/8, ::1'), deny: [], ownPorts: [batonPort], localAddresses: [] };
      const out = await performCall(request(`http://127.0.0.1:${port}/start`), deps(own));
      expect(out).toEqual({ kind: 'failure', reason: expect.stringContaining(`localhost:${batonPort}`) });
      expect((out as { reason: string }).reason).toContain('is Baton itself');
      expect(seen.map((s) => s.path)).toEqual(['/start']);
    } finally {
      await new Promise<void>((r) => baton.close(() => r()));
    }
  });

  test('303 turns into GET without the body; credentials are not sent to another origin', async () => {
    handler = (req, res) => {
      if (req.url === '/submit') res.writeHead(303, { location: '/result' }).end();
      else if (req.url === '/result') res.writeHead(302, { location: `http://localhost:${port}/elsewhere` }).end();
      else res.end(JSON.stringify({ at: req.url }));
    };
    const out = await performCall(
      request(`http://127.0.0.1:${port}/submit`, {
        method: 'POST',
        body: '{"a":1}',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer s3cret', 'X-Keep': '1' },
      }),
      deps({ ...loopbackAllowed, allow: parseEgressRules('127.0.0.1, localhost') }, { resolve: async () => ['127.0.0.1'] }),
    );
    expect(out).toMatchObject({ kind: 'response', status: 200, text: '{"at":"/elsewhere"}' });
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ['POST', '/submit'],
      ['GET', '/result'],
      ['GET', '/elsewhere'],
    ]);
    expect(seen[1]!.headers.authorization).toBe('Bearer s3cret'); // same origin
    expect(seen[2]!.headers.authorization).toBeUndefined(); // localhost is another origin
    expect(seen[2]!.headers['x-keep']).toBe('1');
    expect(seen[1]!.headers['content-type']).toBeUndefined();
  });

  test('limited in number', async () => {
    handler = (req, res) => void res.writeHead(302, { location: `/loop${seen.length}` }).end();
    const out = await performCall(request(`http://127.0.0.1:${port}/loop`, { maxRedirects: 3 }), deps());
    expect(out).toEqual({ kind: 'failure', reason: expect.stringMatching(/^more than 3 redirects/) });
    expect(seen).toHaveLength(4);
  });

  test('off: the 3xx is the response', async () => {
    handler = (_req, res) => void res.writeHead(302, { location: '/next' }).end('moved');
    const out = await performCall(request(`http://127.0.0.1:${port}/`, { maxRedirects: 0 }), deps());
    expect(out).toMatchObject({ kind: 'response', status: 302, text: 'moved', headers: expect.objectContaining({ location: ['/next'] }) });
    expect(seen).toHaveLength(1);
  });
});

describe('response size cap', () => {
  test('a streamed body past the cap fails the call without being read to its end', async () => {
    let written = 0;
    let closedEarly = false;
    handler = (_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => (closedEarly = !res.writableFinished));
      const pump = (): void => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const out = await performCall(request(`http://127.0.0.1:${port}/big`), deps(loopbackAllowed, { maxResponseBytes: 256 * 1024 }));
    expect(out).toMatchObject({
      kind: 'failure',
      reason: 'response body is larger than 262144 bytes (BATON_HTTP_TASK_MAX_RESPONSE_BYTES)',
      partial: { status: 200 },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(closedEarly).toBe(true);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  test('a declared Content-Length past the cap fails at once', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.write('x');
    };
    const out = await performCall(request(`http://127.0.0.1:${port}/declared`), deps(loopbackAllowed, { maxResponseBytes: 1024 }));
    expect(out).toMatchObject({ kind: 'failure', reason: expect.stringContaining('larger than 1024 bytes') });
  });

  test('the cap counts decompressed bytes: a small gzip that inflates past it is refused', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    handler = (_req, res) => void res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(bomb);
    const out = await performCall(request(`http://127.0.0.1:${port}/bomb`), deps(loopbackAllowed, { maxResponseBytes: 1024 * 1024 }));
    expect(out).toMatchObject({ kind: 'failure', reason: expect.stringContaining('larger than 1048576 bytes') });
  });
});

describe('timeouts', () => {
  test('a server that never answers fails the call within connect + read', async () => {
    handler = () => undefined;
    const started = Date.now();
    const out = await performCall(request(`http://127.0.0.1:${port}/hang`, { connectTimeoutMs: 300, readTimeoutMs: 300 }), deps());
    expect(out.kind).toBe('failure');
    expect((out as { reason: string }).reason).toMatch(/Headers Timeout|no complete response within 600 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('a body that trickles forever is cut at connect + read', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      const t = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(t));
    };
    const out = await performCall(request(`http://127.0.0.1:${port}/trickle`, { connectTimeoutMs: 200, readTimeoutMs: 400 }), deps());
    expect(out).toEqual({ kind: 'failure', reason: 'no complete response within 600 ms (connect 200 ms + read 400 ms)' });
  });

  test('stopping abandons the call', async () => {
    handler = () => undefined;
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const out = await performCall(request(`http://127.0.0.1:${port}/hang`), deps(loopbackAllowed, { signal: stop.signal }));
    expect(out).toEqual({ kind: 'failure', reason: 'the call was abandoned: Baton is stopping' });
  });
});
