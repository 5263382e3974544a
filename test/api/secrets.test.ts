import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';

// Secrets over real HTTP: the API, storage at rest, and `${workflow.secrets.NAME}` revealed only in
// what leaves Baton (the HTTP task's request, a worker's polled task), never in what it stores or shows.

let b: TestBaton;
const api = apiClient(() => b.url);

/** A local endpoint that records the headers it receives and echoes them back (so redaction of echoes is tested). */
const received: Array<Record<string, string | string[] | undefined>> = [];
let failWith500 = false;
/** GET /spell?t=VALUE answers, as text, VALUE in the spellings servers echo a request with (percent-encoded, JSON-escaped, Basic auth, form). */
function spellingsOf(url: string): string {
  const value = decodeURIComponent(url.slice(url.indexOf('t=') + 2));
  const python = JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [
    `uri ${url}`,
    `json ${JSON.stringify({ t: value })}`,
    `python ${python}`,
    `basic ${Buffer.from(`user:${value}`).toString('base64')}`,
    `form ${new URLSearchParams({ t: value })}`,
  ].join('\n');
}
const endpoint = http.createServer((req, res) => {
  received.push(req.headers);
  if (req.url?.startsWith('/spell')) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(spellingsOf(req.url));
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(failWith500 ? 500 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ echoed: req.headers['x-secret'], auth: req.headers.authorization }));
  });
});
let endpointUrl = '';

beforeAll(async () => {
  b = await startBaton();
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', () => r()));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/echo`;
});
afterAll(async () => {
  await b?.stop();
  await new Promise((r) => endpoint.close(r));
});

const put = (name: string, value: unknown) => api.call('PUT', `/api/secrets/${name}`, value);
const expectError = (r: { status: number; body: any }, status: number) => {
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ status, message: expect.any(String) });
};

describe('secrets API', () => {
  test('put, get, exists, list, tags, delete', async () => {
    const name = api.uniq('api_key');
    expect((await put(name, 's3cr3t-value')).status).toBe(200);
    const got = await api.call('GET', `/api/secrets/${name}`);
    expect(got.status).toBe(200);
    expect(got.body).toBe('s3cr3t-value');
    expect((await api.call('GET', `/api/secrets/${name}/exists`)).body).toBe(true);
    expect((await api.call('GET', '/api/secrets')).body).toContain(name);
    expect((await api.call('POST', '/api/secrets')).body).toContain(name);

    expect(
      (
        await api.call('PUT', `/api/secrets/${name}/tags`, [
          { key: 'team', value: 'payments' },
          { key: 'env', value: 'prod' },
        ])
      ).status,
    ).toBe(200);
    expect((await api.call('GET', `/api/secrets/${name}/tags`)).body).toEqual([
      { key: 'team', value: 'payments' },
      { key: 'env', value: 'prod' },
    ]);
    expect((await api.call('DELETE', `/api/secrets/${name}/tags`, [{ key: 'env', value: 'prod' }])).status).toBe(200);
    expect((await api.call('GET', `/api/secrets/${name}/tags`)).body).toEqual([{ key: 'team', value: 'payments' }]);
    expect((await api.call('GET', '/api/secrets-v2')).body).toContainEqual({ name, tags: [{ key: 'team', value: 'payments' }] });

    // Replacing the value keeps the tags.
    expect((await put(name, 'second')).status).toBe(200);
    expect((await api.call('GET', `/api/secrets/${name}`)).body).toBe('second');
    expect((await api.call('GET', `/api/secrets/${name}/tags`)).body).toEqual([{ key: 'team', value: 'payments' }]);

    expect((await api.call('DELETE', `/api/secrets/${name}`)).status).toBe(200);
    expect((await api.call('GET', `/api/secrets/${name}/exists`)).body).toBe(false);
    expectError(await api.call('GET', `/api/secrets/${name}`), 404);
    expectError(await api.call('DELETE', `/api/secrets/${name}`), 404);
    expectError(await api.call('GET', `/api/secrets/${name}/tags`), 404);
    expect((await api.call('GET', '/api/secrets')).body).not.toContain(name);
  });

  test('a body that is not a JSON string is the value as sent, whatever its type (the Python SDK sends it unquoted)', async () => {
    const cases: Array<[string, string, string]> = [
      ['raw value', 'text/plain', 'raw value'],
      ['unquoted under json', 'application/json', 'unquoted under json'],
      ['42', 'application/json', '42'],
      ['{"user":"u","password":"p"}', 'application/json', '{"user":"u","password":"p"}'],
      ['"quoted \\"inner\\""', 'application/json', 'quoted "inner"'],
    ];
    for (const [raw, contentType, want] of cases) {
      const name = api.uniq('body');
      expect((await api.call('PUT', `/api/secrets/${name}`, undefined, { raw, contentType })).status).toBe(200);
      expect([raw, (await api.call('GET', `/api/secrets/${name}`)).body]).toEqual([raw, want]);
    }
  });

  test('bad names and values are refused with 400, changing nothing, never echoing the value', async () => {
    expectError(await put('has.dot', 'x'), 400);
    expectError(await put('sp%20ace', 'x'), 400);
    expectError(await put('x'.repeat(256), 'x'), 400);
    const name = api.uniq('bad_values');
    expectError(await put(name, ''), 400);
    expectError(await api.call('PUT', `/api/secrets/${name}`, undefined, { raw: '\u0000\u0001', contentType: 'application/json' }), 400);
    expectError(await put(name, 'bell\u0007'), 400);
    expectError(await api.call('PUT', `/api/secrets/${name}`, undefined, { raw: '', contentType: 'text/plain' }), 400);
    const long = 'L'.repeat(65_536);
    const r = await put(name, long);
    expectError(r, 400);
    expect(JSON.stringify(r.body)).not.toContain(long);
    expect((await api.call('GET', `/api/secrets/${name}/exists`)).body).toBe(false);
    expectError(await api.call('PUT', `/api/secrets/${api.uniq('t')}/tags`, [{ key: 'a', value: 'b' }]), 404);
    await put(name, 'ok');
    expectError(await api.call('PUT', `/api/secrets/${name}/tags`, [{ value: 'no key' }]), 400);
    expectError(await api.call('PUT', `/api/secrets/${name}/tags`, 'nope'), 400);
  });

  test('values are sealed at rest: the database file never holds one in clear; the key file is private', async () => {
    const value = `clear-text-${Date.now()}-marker`;
    await put(api.uniq('at_rest'), value);
    const files = fs.readdirSync(b.dataDir).filter((f) => f.startsWith('baton.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(fs.readFileSync(path.join(b.dataDir, f)).includes(Buffer.from(value))).toBe(false);
    const key = fs.statSync(path.join(b.dataDir, 'secrets.key'));
    expect(key.mode & 0o077).toBe(0);
  });
});

describe('${workflow.secrets.NAME} in task inputs', () => {
  const value = `tok-${Date.now()}-9f2c`;
  let secret = '';
  beforeAll(async () => {
    secret = api.uniq('http_token');
    expect((await put(secret, value)).status).toBe(200);
  });

  /** Everything Baton shows about an execution, as one string. */
  async function everythingShownAbout(id: string): Promise<string> {
    const wf = await api.workflow(id);
    const parts = [JSON.stringify(wf)];
    parts.push((await api.call('GET', `/api/workflow/${id}/tasks`)).text);
    for (const t of wf.tasks) parts.push((await api.call('GET', `/api/tasks/${t.taskId}/log`)).text, (await api.call('GET', `/api/tasks/${t.taskId}`)).text);
    const search = await eventually(async () => {
      const r = await api.call('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId = '${id}'`)}`);
      return r.body?.results?.[0]?.status === wf.status ? r : undefined;
    });
    parts.push(search.text, (await api.call('GET', `/api/workflow/search-v2?query=${encodeURIComponent(`workflowId = '${id}'`)}`)).text);
    parts.push((await api.call('GET', `/api/tasks/search?query=${encodeURIComponent(`workflowId = '${id}'`)}`)).text);
    return parts.join('\n');
  }

  test('the HTTP endpoint receives the secret; stored input keeps the reference; the echo is masked everywhere', async () => {
    const name = api.uniq('http_secret');
    await api.register({
      name,
      tasks: [
        {
          name: 'call',
          taskReferenceName: 'call',
          type: 'HTTP',
          inputParameters: {
            http_request: {
              uri: endpointUrl,
              method: 'POST',
              body: { x: 1 },
              headers: { 'X-Secret': `\${workflow.secrets.${secret}}`, Authorization: `Bearer \${workflow.secrets.${secret}}` },
            },
          },
        },
      ],
      outputParameters: { response: '${call.output.response.body}', header: '${call.input.http_request.headers}' },
    });
    received.length = 0;
    const id = await api.start(name, {});
    const wf = await api.waitForStatus(id, 'COMPLETED');
    expect(received.at(-1)?.['x-secret']).toBe(value);
    expect(received.at(-1)?.authorization).toBe(`Bearer ${value}`);
    const task = wf.tasks[0]! as any;
    expect(task.inputData.http_request.headers).toEqual({
      'X-Secret': `\${workflow.secrets.${secret}}`,
      Authorization: `Bearer \${workflow.secrets.${secret}}`,
    });
    expect(task.outputData.response.body).toEqual({ echoed: '***', auth: 'Bearer ***' });
    expect(await everythingShownAbout(id)).not.toContain(value);
  });

  test('a failing call: the reason and output that echo the secret are masked', async () => {
    const name = api.uniq('http_secret_fail');
    await api.register({
      name,
      tasks: [
        {
          name: 'call',
          taskReferenceName: 'call',
          type: 'HTTP',
          inputParameters: { http_request: { uri: endpointUrl, method: 'GET', headers: { 'X-Secret': `\${workflow.secrets.${secret}}` } } },
        },
      ],
    });
    await api.registerTaskDefs([{ name: 'call', retryCount: 0, responseTimeoutSeconds: 10, timeoutSeconds: 0 }]);
    failWith500 = true;
    try {
      const id = await api.start(name, {});
      const wf = await api.waitForStatus(id, 'FAILED');
      expect(received.at(-1)?.['x-secret']).toBe(value);
      expect(wf.tasks[0]!.reasonForIncompletion).toContain('***');
      expect(wf.reasonForIncompletion ?? '').not.toContain(value);
      expect(await everythingShownAbout(id)).not.toContain(value);
    } finally {
      failWith500 = false;
    }
  });

  test('an echo of the secret percent-encoded, JSON-escaped or in base64 is masked too', async () => {
    const awkward = `p"a\\s/s w&o'r<d é€-${Date.now()}`;
    const awkwardName = api.uniq('awkward');
    expect((await put(awkwardName, awkward)).status).toBe(200);
    const name = api.uniq('http_spellings');
    await api.register({
      name,
      tasks: [
        {
          name: 'call',
          taskReferenceName: 'call',
          type: 'HTTP',
          inputParameters: { http_request: { uri: `${endpointUrl.replace('/echo', '/spell')}?t=\${workflow.secrets.${awkwardName}}`, method: 'GET' } },
        },
      ],
    });
    const id = await api.start(name, {});
    const wf = await api.waitForStatus(id, 'COMPLETED');
    const body = (wf.tasks[0] as any).outputData.response.body as string;
    const sentUri = new URL(`http://h/spell?t=${awkward}`);
    const echoed = spellingsOf(`${sentUri.pathname}${sentUri.search}`);
    expect(body.split('\n').map((line) => line.split(' ')[0])).toEqual(['uri', 'json', 'python', 'basic', 'form']);
    expect(body.match(/\*\*\*/g)).toHaveLength(5);
    for (const line of echoed.split('\n')) expect(body).not.toContain(line.slice(line.indexOf(' ') + 1));
    for (const shown of [awkward, sentUri.search.slice(3), JSON.stringify(awkward).slice(1, -1), new URLSearchParams({ t: awkward }).toString().slice(2)])
      expect(body).not.toContain(shown);
    expect(await everythingShownAbout(id)).not.toContain(awkward);
  });

  test('a missing secret fails the HTTP task, naming the secret and no value, without a call', async () => {
    const name = api.uniq('http_missing');
    const missing = api.uniq('no_such_secret');
    await api.register({
      name,
      tasks: [
        {
          name: 'call_missing',
          taskReferenceName: 'call',
          type: 'HTTP',
          inputParameters: {
            http_request: {
              uri: endpointUrl,
              method: 'GET',
              headers: { 'X-Secret': `\${workflow.secrets.${missing}}`, 'X-Other': `\${workflow.secrets.${secret}}` },
            },
          },
        },
      ],
    });
    await api.registerTaskDefs([{ name: 'call_missing', retryCount: 0, responseTimeoutSeconds: 10, timeoutSeconds: 0 }]);
    const before = received.length;
    const id = await api.start(name, {});
    const wf = await api.waitForStatus(id, 'FAILED');
    expect(wf.tasks[0]!.reasonForIncompletion).toBe(`Secret not found: ${missing} (referenced as \${workflow.secrets.NAME} in the task input)`);
    expect(received.length).toBe(before);
    expect(await everythingShownAbout(id)).not.toContain(value);
  });

  test("a worker's polled task carries the secret; the stored task keeps the reference", async () => {
    const name = api.uniq('worker_secret');
    const type = api.uniq('secret_worker');
    await api.register({
      name,
      tasks: [
        {
          name: type,
          taskReferenceName: 'work',
          type: 'SIMPLE',
          inputParameters: { token: `\${workflow.secrets.${secret}}`, header: `Bearer \${workflow.secrets.${secret}}`, plain: '${workflow.input.x}' },
        },
      ],
    });
    const id = await api.start(name, { x: 7 });
    const polled = await api.pollOne(type);
    expect(polled.inputData).toEqual({ token: value, header: `Bearer ${value}`, plain: 7 });
    const stored = (await api.workflow(id)).tasks[0]!;
    expect(stored.inputData).toEqual({ token: `\${workflow.secrets.${secret}}`, header: `Bearer \${workflow.secrets.${secret}}`, plain: 7 });
    await api.complete(polled, { done: true });
    await api.waitForStatus(id, 'COMPLETED');
    expect(await everythingShownAbout(id)).not.toContain(value);
  });

  test('a worker task naming a missing secret is failed, not handed out', async () => {
    const name = api.uniq('worker_missing');
    const type = api.uniq('secret_worker_missing');
    const missing = api.uniq('absent');
    await api.registerTaskDefs([{ name: type, retryCount: 0, responseTimeoutSeconds: 10, timeoutSeconds: 0 }]);
    await api.register({
      name,
      tasks: [{ name: type, taskReferenceName: 'work', type: 'SIMPLE', inputParameters: { token: `\${workflow.secrets.${missing}}` } }],
    });
    const id = await api.start(name, {});
    const wf = await eventually(async () => {
      const r = await api.call('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100`);
      expect(r.body).toEqual([]);
      const w = await api.workflow(id);
      return w.status === 'FAILED' ? w : undefined;
    });
    expect(wf.tasks[0]!.reasonForIncompletion).toContain(`Secret not found: ${missing}`);
  });
});
