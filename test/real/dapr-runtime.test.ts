import Redis from 'ioredis';
import { request } from 'undici';
import { engineSuite } from '../support/real-engines';
import { eventually, freePort, startCounterApp, type CounterApp } from '../support/dapr/counter-app';
import { missingDapr, startDaprdCluster, type DaprdCluster, type StartedDaprd } from '../support/dapr/daprd-processes';

/**
 * The Dapr actor host and event bus against a real daprd, placement and scheduler built by
 * `npm run services` (two app instances, each with its own sidecar), on 127.0.0.1.
 */
const APP_ID = 'counter-app';
const APP_TOKEN = 'app-token-for-real-daprd';

engineSuite('Dapr', missingDapr())(`counter actor on real daprd ${process.env.BATON_DAPR_VERSION ?? ''}`, () => {
  jest.setTimeout(300_000);
  let cluster: DaprdCluster;
  let redis: Redis;
  const apps: { app: CounterApp; daprd: StartedDaprd }[] = [];

  const launch = async (name: string, port?: number): Promise<CounterApp> => {
    const appPort = port ?? (await freePort());
    const daprd = await cluster.addSidecar(name, { appId: APP_ID, appPort, appApiToken: APP_TOKEN });
    const app = await startCounterApp({
      name,
      appId: APP_ID,
      port: appPort,
      daprHttpPort: daprd.daprHttpPort,
      appApiToken: APP_TOKEN,
      externalEvents: ['dapr:events:orders'],
    });
    await app.host.start();
    // Placement dissemination takes seconds: poll a cheap call until it routes.
    await eventually(() => app.host.invoke('Counter', `warmup-${name}`, 'get').catch(() => undefined), `actor placement for ${name}`, 90_000);
    apps.push({ app, daprd });
    return app;
  };

  const stop = async (app: CounterApp): Promise<void> => {
    const entry = apps.find((x) => x.app === app)!;
    await app.close();
    await entry.daprd.stop();
    apps.splice(apps.indexOf(entry), 1);
  };

  beforeAll(async () => {
    cluster = await startDaprdCluster();
    redis = new Redis(cluster.redisUrl);
    await launch('A');
    await launch('B');
  });

  afterAll(async () => {
    for (const { app } of [...apps]) await app.close().catch(() => undefined);
    await redis?.quit();
    await cluster?.close();
  });

  it('places actors on both instances, each id always on the same one', async () => {
    const [{ app: a }, { app: b }] = apps;
    const ids = Array.from({ length: 16 }, (_, i) => `place-${i}`);
    const first = await Promise.all(ids.map((id) => a.host.invoke<{ host: string }>('Counter', id, 'get')));
    const second = await Promise.all(ids.map((id) => b.host.invoke<{ host: string }>('Counter', id, 'get')));
    expect(second.map((r) => r.host)).toEqual(first.map((r) => r.host));
    expect(new Set(first.map((r) => r.host))).toEqual(new Set(['A', 'B']));
  });

  it('runs one turn at a time per actor under concurrent calls', async () => {
    const [{ app: a }, { app: b }] = apps;
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).host.invoke<{ count: number }>('Counter', 'turns', 'increment', { by: 1 }));
    const counts = (await Promise.all(calls)).map((r) => r.count).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('keeps actor state in the Redis actor state store', async () => {
    await apps[0].app.host.invoke('Counter', 'stored', 'increment', { by: 7 });
    // state.redis keeps each key as a hash with `data` and `version` under <appId>||<type>||<id>||<key>.
    expect(await redis.hget(`${APP_ID}||Counter||stored||count`, 'data')).toBe('7');
  });

  it('hands a failed turn back with its name and message', async () => {
    await expect(apps[0].app.host.invoke('Counter', 'failing', 'fail')).rejects.toMatchObject({ message: 'boom', code: 'E_COUNTER' });
  });

  it('fires a reminder, and re-arms one whose turn failed', async () => {
    const a = apps[0].app;
    await a.host.invoke('Counter', 'remind-1', 'arm', { inMs: 1000 });
    await eventually(async () => ((await a.host.invoke<{ fired: number }>('Counter', 'remind-1', 'get')).fired === 1 ? true : undefined), 'reminder', 60_000);
    for (const { app } of apps) app.failReminders.left = 1;
    await a.host.invoke('Counter', 'remind-2', 'arm', { inMs: 500 });
    await eventually(
      async () => ((await a.host.invoke<{ fired: number }>('Counter', 'remind-2', 'get')).fired === 1 ? true : undefined),
      'retried reminder',
      60_000,
    );
    expect(apps.some(({ app }) => app.reminders.filter((r) => r === 'remind-2/wake').length === 2)).toBe(true);
    for (const { app } of apps) app.failReminders.left = 0;
  });

  it('a recoverable reminder fires from memory while its actor stays active; cleared, it never fires', async () => {
    const a = apps[0].app;
    await a.host.invoke('Counter', 'recoverable-1', 'armRecoverable', { inMs: 300 });
    await a.host.invoke('Counter', 'recoverable-2', 'armRecoverable', { inMs: 300 });
    await a.host.invoke('Counter', 'recoverable-2', 'disarmRecoverable');
    await eventually(
      async () => ((await a.host.invoke<{ fired: number }>('Counter', 'recoverable-1', 'get')).fired === 1 ? true : undefined),
      'recoverable reminder',
      60_000,
    );
    // A later reminder of the same actor, armed through daprd, shows that recoverable-2's would have fired by now.
    await a.host.invoke('Counter', 'recoverable-2', 'arm', { inMs: 600 });
    await eventually(
      async () => ((await a.host.invoke<{ fired: number }>('Counter', 'recoverable-2', 'get')).fired === 1 ? true : undefined),
      'daprd reminder',
      60_000,
    );
    const all = apps.flatMap(({ app }) => app.reminderDeliveries);
    expect(all.filter((d) => d.startsWith('Counter/recoverable-1/'))).toEqual([]);
    expect(all.filter((d) => d.startsWith('Counter/recoverable-2/'))).toEqual(['Counter/recoverable-2/wake']);
    expect(apps.flatMap(({ app }) => app.reminders).filter((r) => r.startsWith('recoverable-2/'))).toEqual(['recoverable-2/wake']);
  });

  it('a recoverable reminder still pending when its actor deactivates is registered with daprd and fires through it', async () => {
    const a = apps[0].app;
    // Ephemeral actors go idle after 500 ms: daprd deactivates this one well before its reminder is due (30 s).
    await a.host.invoke('Ephemeral', 'recoverable-3', 'armRecoverable', { inMs: 30_000 });
    await eventually(() => (apps.some(({ app }) => app.deactivations.includes('Ephemeral/recoverable-3')) ? true : undefined), 'deactivation', 60_000);
    await eventually(
      () => (apps.some(({ app }) => app.reminderDeliveries.includes('Ephemeral/recoverable-3/soon')) ? true : undefined),
      'reminder from daprd',
      60_000,
    );
    expect(apps.flatMap(({ app }) => app.reminders).filter((r) => r === 'recoverable-3/soon')).toEqual(['recoverable-3/soon']);
  });

  it('delivers a Baton event after a RETRY, to one replica', async () => {
    const [{ app: a }, { app: b }] = apps;
    a.failEvents.left = 1;
    b.failEvents.left = 1;
    await a.bus.publish({ id: 'evt-retry-1', event: 'conductor:wf:ref', payload: { workflowId: 'wf-1' } });
    await eventually(() => [...a.events, ...b.events].find((e) => e.id === 'evt-retry-1'), 'redelivered event', 60_000);
    expect([...a.events, ...b.events].filter((e) => e.id === 'evt-retry-1')).toHaveLength(1);
  });

  it('hands task completions and dapr:<pubsub>:<topic> messages to their consumers', async () => {
    const [{ app: a }, { app: b }] = apps;
    await a.client.pubsub.publish('events', 'task-completions', { workflowId: 'wf-9', taskId: 't-1', status: 'COMPLETED' });
    await a.client.pubsub.publish('events', 'orders', { orderId: 'o-1' });
    await eventually(() => [...a.completions, ...b.completions].find((c) => c.workflowId === 'wf-9'), 'completion', 60_000);
    const order = await eventually(() => [...a.events, ...b.events].find((e) => e.event === 'dapr:events:orders'), 'external event', 60_000);
    expect(order.payload).toEqual({ orderId: 'o-1' });
  });

  it('serves service invocation through daprd', async () => {
    const port = (apps[0].daprd as StartedDaprd).daprHttpPort;
    const res = await request(`http://127.0.0.1:${port}/v1.0/invoke/${APP_ID}/method/hello?x=1`);
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { query: unknown }).query).toEqual({ x: '1' });
  });

  it('a reminder survives the restart of the instance that armed it', async () => {
    const a = apps.find((x) => x.app.name === 'A')!.app;
    let id = '';
    for (let i = 0; !id; i++) {
      const r = await a.host.invoke<{ host: string }>('Counter', `survivor-${i}`, 'get');
      if (r.host === 'A') id = `survivor-${i}`;
    }
    await a.host.invoke('Counter', id, 'arm', { inMs: 5000 });
    const port = a.port;
    await stop(a);
    const restarted = await launch('A-restarted', port);
    await eventually(
      async () => ((await restarted.host.invoke<{ fired: number }>('Counter', id, 'get')).fired === 1 ? true : undefined),
      'reminder after restart',
      90_000,
    );
  });
});
