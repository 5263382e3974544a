import { readRequestTarget, type TargetReading } from '../../../src/api/request-target';

// The one reading of a request target: what the gate, the hot path and express all read afterwards.

const HOST = '127.0.0.1:8080';
const read = (raw: string, method = 'GET', host = HOST): TargetReading => readRequestTarget(method, raw, host);
const urlOf = (raw: string, method = 'GET', host = HOST): string | undefined => {
  const r = read(raw, method, host);
  return r.kind === 'target' ? r.target.url : undefined;
};

describe('readRequestTarget', () => {
  test('an origin-form target is kept as sent, split into path and query', () => {
    expect(read('/api/workflow/wf-1?includeTasks=true')).toEqual({
      kind: 'target',
      target: { path: '/api/workflow/wf-1', query: 'includeTasks=true', url: '/api/workflow/wf-1?includeTasks=true' },
    });
    expect(read('/')).toEqual({ kind: 'target', target: { path: '/', query: '', url: '/' } });
    expect(urlOf('/api/x?')).toBe('/api/x?');
    expect(urlOf('/api/metadata/workflow/a%20b')).toBe('/api/metadata/workflow/a%20b');
    // Case and one trailing slash stay: express and the permission table both ignore them alike.
    expect(urlOf('/API/Secrets/k/')).toBe('/API/Secrets/k/');
    // ';' is an ordinary character, as the gate and express's patterns both read it.
    expect(urlOf('/api/secrets/k;x=y')).toBe('/api/secrets/k;x=y');
    // A query may hold what RFC 3986 leaves out of it but clients send ('[', '|', '{').
    expect(urlOf('/api/workflow/search?query=a|b&x[0]={y}')).toBe('/api/workflow/search?query=a|b&x[0]={y}');
  });

  test('absolute-form naming this server (the Host header) becomes origin-form; any other authority or scheme is refused', () => {
    expect(urlOf('http://127.0.0.1:8080/api/secrets/k?x=1')).toBe('/api/secrets/k?x=1');
    expect(urlOf('HTTPS://127.0.0.1:8080/api/secrets/k')).toBe('/api/secrets/k');
    expect(urlOf('http://LOCALHOST:8080/api/x', 'GET', 'localhost:8080')).toBe('/api/x');
    expect(urlOf('http://127.0.0.1:8080')).toBe('/');
    expect(urlOf('http://127.0.0.1:8080?a=b')).toBe('/?a=b');
    for (const t of [
      'http://other.invalid/api/secrets/k',
      'http://127.0.0.1:8081/api/x',
      'http://u@127.0.0.1:8080/api/x',
      'ftp://127.0.0.1:8080/api/x',
      'http:///api/x',
      'http:/api/x',
      '127.0.0.1:8080',
      'api/x',
    ])
      expect([t, read(t).kind]).toEqual([t, 'refused']);
    expect(readRequestTarget('GET', 'http://127.0.0.1:8080/api/x', undefined).kind).toBe('refused');
  });

  test('* is for OPTIONS only', () => {
    expect(read('*', 'OPTIONS')).toEqual({ kind: 'asterisk' });
    expect(read('*', 'GET').kind).toBe('refused');
  });

  test('fragments, backslashes, encoded separators, dot segments, bad escapes and characters outside RFC 3986 are refused', () => {
    const refused = [
      '',
      '/api/secrets/k#/tags',
      '/api/x?a=b#c',
      '/api/tasks/poll\\T',
      '/api/x?a=\\',
      '/api/x%2F..%2Fsecrets',
      '/api/x%5C..%5Csecrets',
      '/api/%2e%2E%2fsecrets',
      '/api/%C0%AF',
      '/api/./secrets',
      '/api/x/../secrets',
      '/api/%2e/secrets',
      '/api/%2E%2e/secrets',
      '/api/.%2E/secrets',
      '/api/secrets/..',
      '/api/x%zz',
      '/api/x%4',
      '/api/x%',
      '/api/a b',
      '/api/a\tb',
      '/api/a"b',
      '/api/a<b>',
      '/api/a{b}',
      '/api/a|b',
      '/api/a^b',
      '/api/a`b',
      '/api/a[b]',
      '/api/caf\u00e9',
      '/api/a\u00a0b',
      '/api/x?a b',
      '/api/x?a=\u00e9',
    ];
    for (const t of refused) expect([t, read(t).kind]).toEqual([t, 'refused']);
    // Dots inside a segment are no dot segment.
    expect(urlOf('/api/metadata/workflow/a.b/..c/...')).toBe('/api/metadata/workflow/a.b/..c/...');
  });

  test("an encoded / or \\ stays inside its segment (a task type or topic holding '/'), unless it hides a dot segment", () => {
    expect(urlOf('/dapr/events/external/pubsub/orders%2Fcreated')).toBe('/dapr/events/external/pubsub/orders%2Fcreated');
    expect(urlOf('/actors/WorkflowActor/a%2Fb/method/m')).toBe('/actors/WorkflowActor/a%2Fb/method/m');
    expect(urlOf('/api/tasks/poll/batch/a%2Fb%5Cc?count=1')).toBe('/api/tasks/poll/batch/a%2Fb%5Cc?count=1');
    expect(read('/actors/../api/secrets/k').kind).toBe('refused');
    expect(read('/actors%2f..%2fapi/secrets/k').kind).toBe('refused');
  });

  test('repeated slashes are merged once, as Tomcat does for Conductor', () => {
    expect(urlOf('//api//secrets///k//?q=//x')).toBe('/api/secrets/k/?q=//x');
    expect(urlOf('http://127.0.0.1:8080//api/x')).toBe('/api/x');
    // Merging cannot make a dot segment appear that was not refused first.
    expect(read('/api//..//secrets').kind).toBe('refused');
  });

  test('every refusal says why', () => {
    const r = read('/api/secrets/k#/tags');
    expect(r.kind === 'refused' && r.message).toMatch(/#/);
  });
});
