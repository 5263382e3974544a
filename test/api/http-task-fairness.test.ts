import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, taskOf } from '../support/api-client';
import { eventually, startBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// One slow host must not starve the others: through a real embedded server, a host that never
// answers holds its calls while another host's workflow runs to the end.

interface Target {
  url: string;
  requests: number;
  /** Requests being answered right now. */
  open: number;
  held: http.ServerResponse[];
  /** Whether requests are held (set false to answer from now on). */
  hold: boolean;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 that answers at once, or (hold) keeps every request open until the test lets go. */
async function target(hold: boolean): Promise<Target> {
  const t = { requests: 0, open: 0, held: [], hold } as unknown as Target;
  const server = http.createServer((_req, res) => {
    t.requests++;
    t.open++;
    res.on('close', () => t.open--);
    res.setHeader('content-type', 'application/json');
    if (t.hold) t.held.push(res);
    else res.end('{"fast":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return t;
}

/** Registers and starts a workflow of one HTTP GET (reference `call`) that may hang for 10 minutes. */
async function startCall(api: ReturnType<typeof apiClient>, uri: string): Promise<string> {
  const name = uniqueName('fair');
  await api.register({
    name,
    tasks: [{ name: 'call', taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request: { uri, method: 'GET', readTimeOut: 600 } } }],
  });
  return api.start(name);
}

// Loopback is allowed here only (the egress guard refuses it by default); calls may hang for 10 minutes.
const env = { BATON_HTTP_TASK_ALLOW: '127.0.0.1', BATON_HTTP_TASK_MAX_TIMEOUT_MS: '600000' };

test("one host that never answers does not hold back another host's workflow", async () => {
  const slow = await target(true);
  const fast = await target(false);
  const b = await startBaton({ ...env, BATON_HTTP_TASK_WORKERS: '2', BATON_HTTP_TASK_PER_HOST: '2', BATON_HTTP_TASK_QUEUE_PER_HOST: '3' });
  const api = apiClient(b);
  try {
    const slowIds = await Promise.all(Array.from({ length: 8 }, () => startCall(api, `${slow.url}/slow`)));
    await eventually(async () => slow.open >= 1);
    const fastId = await startCall(api, `${fast.url}/fast`);
    const done = await api.waitForStatus(fastId, 'COMPLETED', 50_000);
    expect(taskOf(done, 'call')).toMatchObject({ status: 'COMPLETED', outputData: { response: { body: { fast: true } } } });
    // The slow host's call is still hanging: one at a time (the other slot stays for other hosts), unanswered.
    expect(slow.open).toBe(1);
    expect(slow.requests).toBe(1);
    // Past the host's queue (1 call + 3 waiting) the rest fail, retryably, saying why.
    const statuses = async () => Promise.all(slowIds.map(async (id) => taskOf(await api.workflow(id), 'call').status));
    await eventually(async () => (await statuses()).filter((st) => st === 'FAILED').length === 4);
    const tasks = await Promise.all(slowIds.map(async (id) => taskOf(await api.workflow(id), 'call')));
    expect(tasks.filter((t) => t.status === 'IN_PROGRESS')).toHaveLength(4);
    const failed = tasks.filter((t) => t.status === 'FAILED');
    expect(failed).toHaveLength(4);
    for (const t of failed)
      expect(t.reasonForIncompletion).toBe(
        `Failed to invoke HTTP task due to: too many tasks for ${slow.url.slice('http://'.length)} on this replica: 1 in flight (BATON_HTTP_TASK_PER_HOST) and 3 waiting (BATON_HTTP_TASK_QUEUE_PER_HOST)`,
      );
    // As the host answers, the waiting ones go through.
    const release = setInterval(() => slow.held.splice(0).forEach((r) => r.end('{}')), 50);
    try {
      for (const t of tasks.filter((x) => x.status === 'IN_PROGRESS'))
        expect(taskOf(await api.waitForStatus(t.workflowInstanceId, 'COMPLETED', 30_000), 'call').status).toBe('COMPLETED');
    } finally {
      clearInterval(release);
    }
    expect(slow.requests).toBe(4);
  } finally {
    for (const r of slow.held) r.destroy();
    await slow.close();
    await fast.close();
    await b.stop();
  }
});

test("two hosts that never answer do not take every call slot: a third host's workflow completes", async () => {
  const slowA = await target(true);
  const slowB = await target(true);
  const fast = await target(false);
  const b = await startBaton({ ...env, BATON_HTTP_TASK_WORKERS: '4', BATON_HTTP_TASK_PER_HOST: '2' });
  const api = apiClient(b);
  try {
    await Promise.all(Array.from({ length: 6 }, (_, i) => startCall(api, `${i % 2 ? slowB.url : slowA.url}/slow`)));
    await eventually(async () => slowA.open + slowB.open >= 3);
    const fastId = await startCall(api, `${fast.url}/fast`);
    expect(taskOf(await api.waitForStatus(fastId, 'COMPLETED', 50_000), 'call').status).toBe('COMPLETED');
    expect(slowA.requests + slowB.requests).toBe(3);
    expect(slowA.open + slowB.open).toBe(3);
  } finally {
    for (const t of [slowA, slowB]) for (const r of t.held) r.destroy();
    await slowA.close();
    await slowB.close();
    await fast.close();
    await b.stop();
  }
});

test('a replica that stops gives back the tasks waiting for their host: after a restart they run, none timed out', async () => {
  const slow = await target(true);
  const first = await startBaton({ ...env, BATON_HTTP_TASK_WORKERS: '2', BATON_HTTP_TASK_PER_HOST: '1', BATON_HTTP_TASK_QUEUE_PER_HOST: '10' });
  const dataDir = first.dataDir;
  let api = apiClient(first);
  let second: Awaited<ReturnType<typeof startBaton>> | undefined;
  try {
    const ids = await Promise.all(Array.from({ length: 4 }, () => startCall(api, `${slow.url}/slow`)));
    // One call in flight, three claimed and waiting for the host.
    const statuses = async () => Promise.all(ids.map(async (id) => taskOf(await api.workflow(id), 'call').status));
    await eventually(async () => slow.open === 1 && (await statuses()).every((s) => s === 'IN_PROGRESS'));
    await first.stop();
    // Read back without a worker: the three that waited are in their queue again, the same tasks, never started.
    second = await startBaton({ ...env, BATON_DATA_DIR: dataDir, BATON_HTTP_TASK_WORKERS: '0' });
    api = apiClient(second);
    const tasks = await Promise.all(ids.map(async (id) => taskOf(await api.workflow(id), 'call')));
    expect(tasks.map((t) => t.status).sort()).toEqual(['IN_PROGRESS', 'SCHEDULED', 'SCHEDULED', 'SCHEDULED']);
    expect(tasks.every((t) => t.retryCount === 0)).toBe(true);
    await second.stop();
    // The host answers now: every workflow completes, the three without a timeout or a retry.
    slow.held.splice(0).forEach((r) => r.end('{}'));
    slow.hold = false;
    second = await startBaton({ ...env, BATON_DATA_DIR: dataDir, BATON_HTTP_TASK_WORKERS: '2' });
    api = apiClient(second);
    const given = tasks.filter((t) => t.status === 'SCHEDULED').map((t) => t.workflowInstanceId);
    for (const id of given) {
      const done = await api.waitForStatus(id, 'COMPLETED', 30_000);
      expect(done.tasks.map((t) => `${t.referenceTaskName}:${t.status}`)).toEqual(['call:COMPLETED']);
    }
  } finally {
    for (const r of slow.held) r.destroy();
    await slow.close();
    await second?.stop();
  }
});
