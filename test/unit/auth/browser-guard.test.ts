import { browserVerdict, hostOfHeader, type BrowserPolicy } from '../../../src/auth/browser-guard';

const policy = (over: Partial<BrowserPolicy> = {}): BrowserPolicy => ({
  corsOrigins: new Set(['https://ui.example.com']),
  allowedHosts: new Set(['localhost', '127.0.0.1', '[::1]']),
  checkHost: true,
  ...over,
});
const verdict = (method: string, headers: Record<string, string>, p = policy(), path = '/api/workflow') => browserVerdict(method, path, headers, p);

describe('cross-origin requests', () => {
  test('clients that are not browsers send neither Origin nor Sec-Fetch-Site, and pass', () => {
    expect(verdict('POST', { host: '127.0.0.1:8080' })).toEqual({ kind: 'pass' });
  });

  test('a same-origin page passes without CORS headers, behind a proxy that rewrites Host too', () => {
    expect(verdict('POST', { host: 'localhost:8080', origin: 'http://localhost:8080', 'sec-fetch-site': 'same-origin' })).toEqual({ kind: 'pass' });
    expect(verdict('POST', { host: 'localhost:8080', origin: 'http://localhost:8080' })).toEqual({ kind: 'pass' }); // a browser without Sec-Fetch-*
    expect(verdict('POST', { host: '127.0.0.1:8080', origin: 'https://baton.example.com', 'sec-fetch-site': 'same-origin' })).toEqual({ kind: 'pass' });
    expect(verdict('POST', { host: '127.0.0.1:8080', origin: 'https://baton.example.com' }).kind).toBe('refuse');
  });

  test('another origin is refused whatever the method: a poll is a GET that claims tasks', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'GET']) {
      const v = verdict(method, { host: 'localhost:8080', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      expect(v).toEqual({ kind: 'refuse', message: expect.stringContaining('"https://evil.example" is not listed in BATON_CORS_ORIGINS') });
    }
    // Another port of the same machine is another origin (a same-site page).
    expect(verdict('POST', { host: 'localhost:8080', origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' }).kind).toBe('refuse');
    expect(verdict('POST', { host: 'localhost:8080', origin: 'null' }).kind).toBe('refuse');
  });

  test('Sec-Fetch-Site alone (no-cors requests carry no Origin) is enough to refuse', () => {
    expect(verdict('GET', { host: 'localhost:8080', 'sec-fetch-site': 'cross-site' }).kind).toBe('refuse');
    expect(verdict('GET', { host: 'localhost:8080', 'sec-fetch-site': 'same-site' }).kind).toBe('refuse');
    expect(verdict('GET', { host: 'localhost:8080', 'sec-fetch-site': 'none' })).toEqual({ kind: 'pass' });
  });

  test('an allowed origin gets CORS headers, and its preflight an answer', () => {
    const origin = 'https://ui.example.com';
    expect(verdict('POST', { host: 'baton:8080', origin, 'sec-fetch-site': 'cross-site' }, policy({ checkHost: false }))).toEqual({
      kind: 'pass',
      headers: { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' },
    });
    expect(
      verdict('OPTIONS', {
        host: 'localhost',
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-authorization',
      }),
    ).toEqual({
      kind: 'preflight',
      headers: {
        'Access-Control-Allow-Origin': origin,
        Vary: 'Origin',
        'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, DELETE',
        'Access-Control-Allow-Headers': 'content-type,x-authorization',
        'Access-Control-Max-Age': '600',
      },
    });
    expect(verdict('OPTIONS', { host: 'localhost', origin: 'https://evil.example', 'access-control-request-method': 'POST' }).kind).toBe('refuse');
  });
});

describe('the Host check (auth off, against DNS rebinding)', () => {
  test('configured names pass, with or without a port', () => {
    for (const host of ['localhost', 'localhost:8080', '127.0.0.1:1', '[::1]:8080', 'LOCALHOST:8080'])
      expect([host, verdict('GET', { host }).kind]).toEqual([host, 'pass']);
  });

  test('a rebinding name is refused, naming the variable', () => {
    expect(verdict('GET', { host: 'attacker.example:8080' })).toEqual({
      kind: 'refuse',
      message: expect.stringContaining('Host "attacker.example" is not allowed'),
    });
    expect(verdict('POST', { host: 'attacker.example' }).kind).toBe('refuse');
  });

  test('health checks, auth on, and BATON_ALLOWED_HOSTS=* are not checked', () => {
    expect(verdict('GET', { host: '10.1.2.3:8080' }, policy(), '/health').kind).toBe('pass');
    expect(verdict('GET', { host: '10.1.2.3:8080' }, policy(), '/healthz').kind).toBe('pass');
    expect(verdict('GET', { host: 'attacker.example' }, policy({ checkHost: false })).kind).toBe('pass');
    expect(verdict('GET', { host: 'attacker.example' }, policy({ allowedHosts: 'any' })).kind).toBe('pass');
  });

  test('host names of Host headers', () => {
    expect(hostOfHeader('Example.COM:8080')).toBe('example.com');
    expect(hostOfHeader('[::1]:80')).toBe('[::1]');
    expect(hostOfHeader('[::1]')).toBe('[::1]');
    expect(hostOfHeader('10.0.0.1')).toBe('10.0.0.1');
  });
});
