import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SidecarHttp } from '../../../../src/runtime/dapr/sidecar-http';

// The last step of a stop closes the sidecar client: a call the sidecar never answers must not hold it (and the
// process's exit) for the call's own limit.

test('close ends while a call is still unanswered, and that call fails instead of hanging', async () => {
  const held: http.ServerResponse[] = [];
  const sidecar = http.createServer((_req, res) => void held.push(res));
  await new Promise<void>((r) => sidecar.listen(0, '127.0.0.1', () => r()));
  const client = new SidecarHttp({ port: (sidecar.address() as AddressInfo).port, timeoutMs: 600_000 });
  try {
    const pending = client.call('PUT', '/v1.0/actors/WorkflowActor/x/method/get', {});
    const outcome = pending.then(
      () => 'answered',
      () => 'failed',
    );
    while (held.length === 0) await new Promise((r) => setTimeout(r, 10));
    await client.close(50);
    expect(await outcome).toBe('failed');
    expect(held).toHaveLength(1); // the sidecar never answered it
  } finally {
    for (const res of held) res.destroy();
    sidecar.closeAllConnections();
    await new Promise<void>((r) => sidecar.close(() => r()));
  }
});

test('close waits for a call that is answered within the grace', async () => {
  const sidecar = http.createServer((_req, res) => setTimeout(() => res.end('{}'), 100));
  await new Promise<void>((r) => sidecar.listen(0, '127.0.0.1', () => r()));
  const client = new SidecarHttp({ port: (sidecar.address() as AddressInfo).port, timeoutMs: 600_000 });
  try {
    const pending = client.call('GET', '/v1.0/metadata');
    await new Promise((r) => setTimeout(r, 20));
    await client.close(5000);
    expect((await pending).status).toBe(200);
  } finally {
    await new Promise<void>((r) => sidecar.close(() => r()));
  }
});
