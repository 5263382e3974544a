import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { request } from 'undici';
import { DaprActorHost } from '../../../../src/runtime/dapr/dapr-actor-host';
import type { SidecarHttp, SidecarReply } from '../../../../src/runtime/dapr/sidecar-http';
import type { ActorContext } from '../../../../src/runtime/ports';

// A sidecar that stopped answering actor calls (as daprd 1.18.2 does once its app reports unhealthy):
// every call waits out the limit it is given, then fails as a timeout.
class SilentSidecar {
  readonly limits: Array<{ method: string; path: string; timeoutMs: number | undefined }> = [];
  call(method: string, path: string, _body?: unknown, timeoutMs?: number): Promise<SidecarReply> {
    this.limits.push({ method, path, timeoutMs });
    return new Promise((_, reject) =>
      setTimeout(() => reject(Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' })), timeoutMs ?? 60_000),
    );
  }
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('a replica stops within its bound whatever its sidecar does', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  const start = async (host: DaprActorHost): Promise<string> => {
    const app = express();
    app.use(host.router());
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server!.once('listening', r));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  };

  test('reminders held in memory are registered at stop with the short stop limit, all at once', async () => {
    const sidecar = new SilentSidecar();
    const host = new DaprActorHost({ sidecar: sidecar as unknown as SidecarHttp, log: quiet, recoverableRemindersInMemory: true, stopCallTimeoutMs: 50 });
    host.register('Timer', (ctx: ActorContext) => ({
      holdsClaim: async () => true, // it may keep timers in memory (the host asks before running one)
      invoke: async () => {
        const inAnHour = Date.now() + 3_600_000;
        await ctx.setRecoverableReminder!('deadline', inAnHour);
        await ctx.setRecoverableReminder!('retry', inAnHour);
        return 'armed';
      },
      onReminder: async () => undefined,
    }));
    const base = await start(host);
    for (const id of ['a', 'b']) {
      const res = await request(`${base}/actors/Timer/${id}/method/arm`, { method: 'PUT', body: '{}' });
      expect(await res.body.json()).toBe('armed');
    }
    expect(sidecar.limits).toEqual([]); // held as timers while the activations live

    await host.stop();
    const saves = sidecar.limits.filter((c) => c.method === 'PUT' && c.path.includes('/reminders/'));
    expect(saves.map((c) => c.path).sort()).toEqual([
      '/v1.0/actors/Timer/a/reminders/deadline',
      '/v1.0/actors/Timer/a/reminders/retry',
      '/v1.0/actors/Timer/b/reminders/deadline',
      '/v1.0/actors/Timer/b/reminders/retry',
    ]);
    expect(new Set(saves.map((c) => c.timeoutMs))).toEqual(new Set([50]));
  });

  test('a turn that never ends does not hold the stop past stopWithinMs', async () => {
    const sidecar = new SilentSidecar();
    const warnings: string[] = [];
    const host = new DaprActorHost({
      sidecar: sidecar as unknown as SidecarHttp,
      log: { ...quiet, warn: (_o: unknown, m?: string) => void warnings.push(String(m)) },
      stopWithinMs: 100,
    });
    let entered!: () => void;
    const inTurn = new Promise<void>((r) => (entered = r));
    host.register('Stuck', () => ({
      invoke: () => {
        entered();
        return new Promise(() => undefined); // e.g. a call to a sidecar that never answers
      },
      onReminder: async () => undefined,
    }));
    const base = await start(host);
    void request(`${base}/actors/Stuck/x/method/work`, { method: 'PUT', body: '{}' }).catch(() => undefined);
    await inTurn;
    await host.stop();
    expect(warnings).toContain('stopped with actor turns still running; the recovery scan re-derives their reminders');
  });
});
