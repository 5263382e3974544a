import express from 'express';
import type { Server } from 'node:http';
import { call, eventually } from './baton';

// Helpers for test/api/task-types.test.ts: direct polls as a worker would make them, and a local
// HTTP server for HTTP tasks to call.

/** What `GET /api/tasks/poll/{type}` hands out (the fields the tests read). */
export interface PolledTask {
  taskId: string;
  workflowInstanceId: string;
  referenceTaskName: string;
  taskType: string;
  status: string;
  inputData: Record<string, unknown>;
  domain?: string;
  isolationGroupId?: string;
  pollCount?: number;
}

export interface PollOptions {
  domain?: string;
  workerId?: string;
}

function pollQuery(o: PollOptions): string {
  const q = new URLSearchParams({ workerid: o.workerId ?? 'task-types-worker' });
  if (o.domain) q.set('domain', o.domain);
  return q.toString();
}

/** One poll; undefined when the server answers 204 (nothing to hand out). */
export async function pollOnce(base: string, taskType: string, o: PollOptions = {}): Promise<PolledTask | undefined> {
  const r = await call<PolledTask>(base, 'GET', `/api/tasks/poll/${encodeURIComponent(taskType)}?${pollQuery(o)}`);
  if (r.status === 204) return undefined;
  if (r.status !== 200) throw new Error(`poll ${taskType} answered ${r.status}: ${r.text}`);
  return r.body;
}

/** One batch poll, long-polling up to `timeoutMs` (the server's own bounded wait). */
export async function pollBatch(base: string, taskType: string, count: number, timeoutMs: number, o: PollOptions = {}): Promise<PolledTask[]> {
  const r = await call<PolledTask[]>(base, 'GET', `/api/tasks/poll/batch/${encodeURIComponent(taskType)}?count=${count}&timeout=${timeoutMs}&${pollQuery(o)}`);
  if (r.status !== 200) throw new Error(`batch poll ${taskType} answered ${r.status}: ${r.text}`);
  return r.body;
}

/** Polls until a task of `taskType` is handed out (bounded). */
export function pollUntilTask(base: string, taskType: string, o: PollOptions = {}, limitMs = 20_000): Promise<PolledTask> {
  return eventually(() => pollOnce(base, taskType, o), limitMs);
}

/** A request the HTTP target received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface HttpTarget {
  url: string;
  received: ReceivedRequest[];
  stop(): Promise<void>;
}

/** A local express server: `POST /echo` answers 200 with what it got, `GET /fail` answers 500. */
export async function startHttpTarget(): Promise<HttpTarget> {
  const received: ReceivedRequest[] = [];
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    received.push({ method: req.method, path: req.path, headers: req.headers, body: req.body });
    next();
  });
  app.post('/echo', (req, res) => {
    res.status(200).json({ got: req.body, header: req.headers['x-test'] ?? null });
  });
  app.get('/fail', (_req, res) => {
    res.status(500).type('text/plain').send('target is down');
  });
  let server: Server | undefined;
  await new Promise<void>((resolve) => (server = app.listen(0, '127.0.0.1', () => resolve())));
  const addr = server!.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    stop: () => new Promise<void>((resolve) => server!.close(() => resolve())),
  };
}
