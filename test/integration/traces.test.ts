import fs from 'node:fs';
import path from 'node:path';
import { apiClient } from '../support/api-client';
import { call, eventually } from '../support/baton';
import { startOtlpReceiver, spanAttr as attr, type OtlpReceiver, type ReceivedSpan as Span } from '../support/otlp-receiver';
import { freePort, logPath, TestProcess } from '../support/processes';
import { tempDir } from '../support/temp-dirs';

// OpenTelemetry traces exported over OTLP/HTTP to a receiver in this test (node:http, the exporter's
// JSON encoding): spans of HTTP requests, actor turns and store calls, and their parent links.
// Baton runs as its own process (dist/main.js): the exporter loads node:http by a dynamic import,
// which jest's module sandbox refuses.

const MAIN = path.join(__dirname, '../../dist/main.js');

let receiver: OtlpReceiver;
let baton: TestProcess;
const b = { url: '' };
const api = apiClient(() => b.url);

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  if (!fs.existsSync(MAIN)) throw new Error('dist/main.js missing: run `npm run build` (npm test does it in pretest)');
  const dir = tempDir('baton-traces-');
  const batonPort = await freePort();
  const env = {
    ...process.env,
    PORT: String(batonPort),
    BATON_DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'baton-traces-test',
  };
  baton = new TestProcess('baton', process.execPath, [MAIN], logPath(dir, 'baton'), env);
  b.url = `http://127.0.0.1:${batonPort}`;
  await eventually(async () => (await call(b.url, 'GET', '/health').catch(() => undefined))?.status === 200, 30_000, 100);
}, 60_000);
afterAll(async () => {
  await baton?.stop();
  await receiver?.close();
});

const spanWhere = (pred: (s: Span) => boolean): Promise<Span> => eventually(async () => receiver.spans.find(pred), 30_000, 100);

test('a start is a server span, its actor turn a child, the store commit a grandchild', async () => {
  const name = api.uniq('traced');
  const type = api.uniq('traced_t');
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }] });
  const id = await api.start(name);
  const http = await spanWhere((s) => s.name === 'POST /api/workflow');
  expect(http.kind).toBe(2); // SERVER
  expect(attr(http, 'http.route')).toBe('/api/workflow');
  expect(attr(http, 'http.response.status_code')).toBe(200);
  const turn = await spanWhere((s) => s.name === 'actor WorkflowActor.start' && attr(s, 'baton.actor.id') === id);
  expect(turn.parentSpanId).toBe(http.spanId);
  expect(turn.traceId).toBe(http.traceId);
  const commit = await spanWhere((s) => s.name === 'store commit' && s.parentSpanId === turn.spanId);
  expect(commit.traceId).toBe(http.traceId);
  expect(receiver.resources.some((r) => JSON.stringify(r).includes('baton-traces-test'))).toBe(true);
});

test("a caller's traceparent is the parent of the request's span; express routes are named by template", async () => {
  const name = api.uniq('traced_parent');
  await api.register({ name, tasks: [{ name: api.uniq('tp_t'), taskReferenceName: 'a', type: 'SIMPLE' }] });
  const id = await api.start(name);
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = '00f067aa0ba902b7';
  const r = await call(b.url, 'GET', `/api/workflow/${id}`, undefined, { headers: { traceparent: `00-${traceId}-${parent}-01` } });
  expect(r.status).toBe(200);
  const span = await spanWhere((s) => s.traceId === traceId && s.name === 'GET /api/workflow/{workflowId}');
  expect(span.parentSpanId).toBe(parent);
  expect(attr(span, 'http.response.status_code')).toBe(200);
  // A read goes to the store, not through the actor: its store call is the child.
  const load = await spanWhere((s) => s.traceId === traceId && s.name === 'store load');
  expect(load.parentSpanId).toBe(span.spanId);
});
