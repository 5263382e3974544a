import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { request } from 'undici';
import { DaprActorHost } from '../../../../src/runtime/dapr/dapr-actor-host';
import type { SidecarHttp, SidecarReply } from '../../../../src/runtime/dapr/sidecar-http';
import { outsideTurn } from '../../../../src/runtime/turn-context';

// A turn must not await an actor call through the sidecar: placement's dissemination round waits for
// in-flight calls, and a call nested in one can outlive it. The host refuses such a call; work started
// outside the turn (not awaited by it) goes through.

/** A sidecar that answers every actor call with "ok" and records it. */
class RecordingSidecar {
  readonly calls: string[] = [];
  async call(method: string, path: string): Promise<SidecarReply> {
    this.calls.push(`${method} ${path}`);
    return { status: 200, body: JSON.stringify('ok') };
  }
}

const errors: string[] = [];
const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (_o: unknown, m?: string) => void errors.push(String(m)) };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
  errors.length = 0;
});

async function hostWith(onCall: (host: DaprActorHost) => Promise<unknown>): Promise<{ base: string; sidecar: RecordingSidecar; host: DaprActorHost }> {
  const sidecar = new RecordingSidecar();
  const host = new DaprActorHost({ sidecar: sidecar as unknown as SidecarHttp, log });
  host.register('Caller', () => ({ invoke: () => onCall(host), onReminder: async () => undefined }));
  const app = express();
  app.use(host.router());
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server!.once('listening', r));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, sidecar, host };
}

const callCaller = async (base: string): Promise<{ status: number; body: { error?: { name: string; message: string } } | string }> => {
  const res = await request(`${base}/actors/Caller/c1/method/go`, { method: 'PUT', body: '{}' });
  return { status: res.statusCode, body: (await res.body.json()) as never };
};

test('a turn awaiting an actor call through the sidecar fails with CallInsideTurn, and the call is never sent', async () => {
  const { base, sidecar } = await hostWith((host) => host.invoke('WorkflowActor', 'w1', 'childChanged', {}));
  const r = await callCaller(base);
  expect(r.status).toBe(500);
  expect(r.body).toMatchObject({ error: { name: 'CallInsideTurn', message: expect.stringContaining('WorkflowActor.childChanged') } });
  expect(sidecar.calls).toEqual([]);
  expect(errors).toEqual(['actor call refused inside a turn']);
});

test('the same call deep in the turn (after other awaits, in a timer) is refused too', async () => {
  const { base, sidecar } = await hostWith(async (host) => {
    await new Promise((r) => setTimeout(r, 1));
    return new Promise((resolve, reject) => setImmediate(() => host.invoke('QueueActor', 'q', 'push', {}).then(resolve, reject)));
  });
  expect((await callCaller(base)).body).toMatchObject({ error: { name: 'CallInsideTurn' } });
  expect(sidecar.calls).toEqual([]);
});

test('a call started outside the turn (not awaited by it) goes through after the turn answered', async () => {
  let sent!: Promise<unknown>;
  const { base, sidecar } = await hostWith(async (host) => {
    sent = outsideTurn(() => host.invoke('WorkflowActor', 'w1', 'childChanged', {}));
    return 'answered';
  });
  expect(await callCaller(base)).toEqual({ status: 200, body: 'answered' });
  expect(await sent).toBe('ok');
  expect(sidecar.calls).toEqual(['PUT /v1.0/actors/WorkflowActor/w1/method/childChanged']);
});

test('calls from outside any turn (API requests) are not affected', async () => {
  const { host, sidecar } = await hostWith(async () => undefined);
  expect(await host.invoke('WorkflowActor', 'w1', 'get')).toBe('ok');
  expect(sidecar.calls).toHaveLength(1);
});
