import Redis from 'ioredis';
import { request } from 'undici';
import { DaprClusterDouble } from '../../support/dapr-sidecar-double';
import { eventually, freePort, startCounterApp, type CounterApp } from '../../support/dapr/counter-app';
import { RemoteActorError } from '../../../src/runtime/dapr/actor-errors';
import { ActorDeactivated } from '../../../src/runtime/ports';
import { RedisDeliveryDedupe } from '../../../src/events/dapr/delivery-dedupe';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `baton-test:dapr-double:${process.pid}:${Date.now()}:`;
const APP_ID = 'counter-app';
const APP_TOKEN = 'app-token-for-tests';

describe('Dapr sidecar double with two app instances on DaprActorHost', () => {
  let cluster: DaprClusterDouble;
  let redis: Redis;
  const apps: CounterApp[] = [];
  const sidecarPort = new Map<number, number>();

  const launch = async (name: string, port?: number): Promise<CounterApp> => {
    const appPort = port ?? (await freePort());
    const sidecar = await cluster.addApp({ appId: APP_ID, appPort });
    const app = await startCounterApp({
      name,
      appId: APP_ID,
      port: appPort,
      daprHttpPort: sidecar.daprHttpPort,
      appApiToken: APP_TOKEN,
      dedupe: new RedisDeliveryDedupe(redis, prefix),
      externalEvents: ['dapr:events:orders'],
    });
    await sidecar.ready;
    await app.host.start();
    sidecarPort.set(appPort, sidecar.daprHttpPort);
    apps.push(app);
    return app;
  };

  const stopApp = async (app: CounterApp): Promise<void> => {
    await cluster.removeApp(app.port);
    await app.close();
    apps.splice(apps.indexOf(app), 1);
  };

  const hostName = (port: number | undefined): string | undefined => apps.find((a) => a.port === port)?.name;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    cluster = await DaprClusterDouble.start({ redisUrl: REDIS_URL, keyPrefix: prefix, appApiToken: APP_TOKEN, pubsubRetryMs: 100 });
    await launch('A');
    await launch('B');
  });

  afterAll(async () => {
    for (const app of [...apps]) await app.close();
    await cluster.purge();
    await cluster.close();
    await redis.quit();
    await apps[0]?.client.stop();
  });

  it('reads GET /dapr/config and reports the hosted types in /v1.0/metadata', async () => {
    const [a] = apps;
    const res = await request(`http://127.0.0.1:${sidecarPort.get(a.port)}/v1.0/metadata`);
    const meta = (await res.body.json()) as { id: string; actorRuntime: { hostReady: boolean; activeActors: { type: string }[] } };
    expect(meta.id).toBe(APP_ID);
    expect(meta.actorRuntime.hostReady).toBe(true);
    expect(meta.actorRuntime.activeActors.map((x) => x.type).sort()).toEqual(['Counter', 'Ephemeral']);
  });

  it('places actors across both instances, each id always on the same one', async () => {
    const [a, b] = apps;
    const ids = Array.from({ length: 16 }, (_, i) => `place-${i}`);
    const first = await Promise.all(ids.map((id) => a.host.invoke<{ host: string }>('Counter', id, 'get')));
    const second = await Promise.all(ids.map((id) => b.host.invoke<{ host: string }>('Counter', id, 'get')));
    expect(second.map((r) => r.host)).toEqual(first.map((r) => r.host));
    expect(new Set(first.map((r) => r.host))).toEqual(new Set(['A', 'B']));
    ids.forEach((id, i) => expect(first[i].host).toBe(hostName(cluster.placementOf('Counter', id))));
  });

  it('runs one turn at a time per actor under concurrent calls from both replicas', async () => {
    const [a, b] = apps;
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).host.invoke<{ count: number }>('Counter', 'turns', 'increment', { by: 1 }));
    const counts = (await Promise.all(calls)).map((r) => r.count).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(apps.every((app) => app.maxConcurrentTurns === 1)).toBe(true);
  });

  it("an actor's call to itself runs as a turn of its own in the hosting process, not through daprd", async () => {
    const [a, b] = apps;
    const id = 'self-call';
    const owner = (await a.host.invoke<{ host: string }>('Counter', id, 'get')).host === 'A' ? a : b;
    const before = owner.deliveries.length;
    await (owner === a ? b : a).host.invoke('Counter', id, 'callSelfLater', { by: 5 }); // from the other replica: through daprd
    await eventually(() => owner.selfCalls[0], 'the self call to finish');
    expect(owner.selfCalls).toEqual([{ count: 5, host: owner.name }]);
    expect(owner.deliveries.slice(before)).toEqual([`Counter/${id}/callSelfLater`]); // increment never crossed daprd
    expect(owner.maxConcurrentTurns).toBe(1);
    expect((await b.host.invoke<{ count: number }>('Counter', id, 'get')).count).toBe(5);
  });

  it('keeps actor state in Redis under <appId>||<type>||<id>||<key>', async () => {
    await apps[0].host.invoke('Counter', 'stored', 'increment', { by: 7 });
    expect(await redis.get(`${prefix}state:${APP_ID}||Counter||stored||count`)).toBe('7');
  });

  it('hands a failed turn back to the caller with its name, message and properties', async () => {
    const err = await apps[0].host.invoke('Counter', 'failing', 'fail').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteActorError);
    expect(err).toMatchObject({ name: 'Error', message: 'boom', code: 'E_COUNTER', status: 409 });
    const fenced = await apps[1].host.invoke('Counter', 'fenced', 'fence').catch((e: unknown) => e);
    expect(fenced).toBeInstanceOf(ActorDeactivated);
  });

  it('passes JSON arguments and results unchanged, falsy ones included', async () => {
    for (const v of [0, false, null, '', 'text', [1, 2], { nested: { x: 1 } }]) {
      expect(await apps[1].host.invoke('Counter', 'echo', 'echo', v)).toEqual(v);
    }
  });

  it('fires a reminder once and forgets it after a 2xx', async () => {
    const [a] = apps;
    await a.host.invoke('Counter', 'remind-1', 'arm', { inMs: 300 });
    const state = await eventually(async () => {
      const s = await a.host.invoke<{ fired: number }>('Counter', 'remind-1', 'get');
      return s.fired === 1 ? s : undefined;
    }, 'reminder to fire');
    expect(state.fired).toBe(1);
    // The double notes a fire's status once the app's answer is back, which can trail the turn itself.
    await eventually(() => (cluster.reminderFires.some((f) => f.id === 'remind-1' && f.status === 200) ? true : undefined), 'fire recorded');
    expect(cluster.reminderFires.filter((f) => f.id === 'remind-1')).toEqual([expect.objectContaining({ name: 'wake', status: 200 })]);
    const res = await request(`http://127.0.0.1:${sidecarPort.get(a.port)}/v1.0/actors/Counter/remind-1/reminders/wake`);
    expect(res.statusCode).toBe(500); // gone after its one fire
    await res.body.dump();
  });

  it('re-arms a reminder whose turn failed, so it fires again', async () => {
    const [a, b] = apps;
    a.failReminders.left = 1;
    b.failReminders.left = 1;
    const owner = apps.find((x) => x.port === cluster.placementOf('Counter', 'remind-retry'))!;
    const other = owner === a ? b : a;
    other.failReminders.left = 0;
    await a.host.invoke('Counter', 'remind-retry', 'arm', { inMs: 100 });
    await eventually(
      async () => ((await a.host.invoke<{ fired: number }>('Counter', 'remind-retry', 'get')).fired === 1 ? true : undefined),
      'retried reminder',
    );
    expect(owner.reminders.filter((r) => r === 'remind-retry/wake')).toHaveLength(2);
    owner.failReminders.left = 0;
  });

  it('a disarmed reminder does not fire', async () => {
    const [a] = apps;
    await a.host.invoke('Counter', 'remind-off', 'arm', { inMs: 60_000 });
    await a.host.invoke('Counter', 'remind-off', 'disarm');
    const res = await request(`http://127.0.0.1:${sidecarPort.get(a.port)}/v1.0/actors/Counter/remind-off/reminders/wake`);
    expect(res.statusCode).toBe(500);
    await res.body.dump();
  });

  it('a recoverable reminder fires from memory while its actor is active; the sidecar never holds it', async () => {
    const [a] = apps;
    await a.host.invoke('Counter', 'recoverable-1', 'armRecoverable', { inMs: 200 });
    const res = await request(`http://127.0.0.1:${sidecarPort.get(a.port)}/v1.0/actors/Counter/recoverable-1/reminders/soon`);
    expect(res.statusCode).toBe(500); // not registered with the sidecar
    await res.body.dump();
    await eventually(
      async () => ((await a.host.invoke<{ fired: number }>('Counter', 'recoverable-1', 'get')).fired === 1 ? true : undefined),
      'recoverable reminder',
    );
    expect(cluster.reminderFires.filter((f) => f.id === 'recoverable-1')).toEqual([]);
  });

  it('a recoverable reminder pending at deactivation is registered with the sidecar and fires through it', async () => {
    const [a] = apps;
    const r = await a.host.invoke<{ host: string }>('Ephemeral', 'recoverable-2', 'get');
    const owner = apps.find((x) => x.name === r.host)!;
    await a.host.invoke('Ephemeral', 'recoverable-2', 'armRecoverable', { inMs: 5000 });
    await eventually(() => (owner.deactivations.includes('Ephemeral/recoverable-2') ? true : undefined), 'idle deactivation');
    await eventually(
      () => (cluster.reminderFires.some((f) => f.id === 'recoverable-2' && f.name === 'soon' && f.status === 200) ? true : undefined),
      'reminder fired by the sidecar',
    );
    expect(owner.reminders.filter((x) => x === 'recoverable-2/soon')).toEqual(['recoverable-2/soon']);
  });

  it('deactivates idle actors (entitiesConfig idle timeout) through DELETE', async () => {
    const [a] = apps;
    const r = await a.host.invoke<{ host: string }>('Ephemeral', 'idle-1', 'get');
    const owner = apps.find((x) => x.name === r.host)!;
    await eventually(() => (owner.deactivations.includes('Ephemeral/idle-1') ? true : undefined), 'idle deactivation');
    // The double forgets the activation once the app has answered the DELETE, a moment after the app saw it.
    await eventually(() => (cluster.activeActors().some((x) => x.id === 'idle-1') ? undefined : true), 'activation forgotten');
  });

  it('rejects app-channel calls without the dapr-api-token', async () => {
    const res = await request(`http://127.0.0.1:${apps[0].port}/actors/Counter/x/method/get`, { method: 'PUT' });
    expect(res.statusCode).toBe(401);
    await res.body.dump();
    const ok = await request(`http://127.0.0.1:${apps[0].port}/dapr/config`, { headers: { 'dapr-api-token': APP_TOKEN } });
    expect(((await ok.body.json()) as { entities: string[] }).entities).toEqual(['Counter', 'Ephemeral']);
  });

  it('forwards service invocation to an instance of the app id (path, query, body, status)', async () => {
    const port = sidecarPort.get(apps[0].port);
    const res = await request(`http://127.0.0.1:${port}/v1.0/invoke/${APP_ID}/method/hello?x=1`);
    const body = (await res.body.json()) as { hello: string; query: { x: string }; token: string };
    expect(res.statusCode).toBe(200);
    expect(['A', 'B']).toContain(body.hello);
    expect(body.query).toEqual({ x: '1' });
    expect(body.token).toBe(APP_TOKEN);
    const posted = await request(`http://127.0.0.1:${port}/echo-body`, {
      method: 'POST',
      headers: { 'dapr-app-id': APP_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(posted.statusCode).toBe(201);
    expect(await posted.body.json()).toEqual({ got: { a: 1 } });
  });

  it('delivers a Baton event to exactly one replica, redelivering after RETRY', async () => {
    const [a, b] = apps;
    a.failEvents.left = 1;
    b.failEvents.left = 1;
    await a.bus.publish({ id: 'evt-retry-1', event: 'conductor:wf:ref', payload: { workflowId: 'wf-1', n: 1 } });
    const got = await eventually(() => [...a.events, ...b.events].find((e) => e.id === 'evt-retry-1'), 'event delivery');
    expect(got).toEqual({ id: 'evt-retry-1', event: 'conductor:wf:ref', payload: { workflowId: 'wf-1', n: 1 } });
    // The double notes an attempt's outcome once the app's answer is back, which can trail the handler itself.
    const outcomesOf = (): string[] => cluster.deliveryAttempts.filter((d) => d.id === 'evt-retry-1').map((d) => d.outcome);
    await eventually(() => (outcomesOf().at(-1) === 'SUCCESS' ? true : undefined), 'delivery outcome recorded');
    expect(outcomesOf()[0]).toBe('RETRY');
    expect([...a.events, ...b.events].filter((e) => e.id === 'evt-retry-1')).toHaveLength(1);
    a.failEvents.left = 0;
    b.failEvents.left = 0;
  });

  it('a Baton event carries its publisher lineage to the replica that handles it (event-handler starts descend from it)', async () => {
    const [a, b] = apps;
    const lineage = { rootWorkflowId: 'root-1', generation: 3 };
    await a.bus.publish({ id: 'evt-lineage', event: 'baton:workflow:wf', payload: { workflowId: 'wf-3' }, lineage });
    const got = await eventually(() => [...a.events, ...b.events].find((e) => e.id === 'evt-lineage'), 'event delivery');
    expect(got).toEqual({ id: 'evt-lineage', event: 'baton:workflow:wf', payload: { workflowId: 'wf-3' }, lineage });
  });

  it('acks a redelivered CloudEvent id without running the handler again', async () => {
    const [a, b] = apps;
    await a.bus.publish({ id: 'evt-dup', event: 'conductor:x', payload: { k: 1 } });
    await b.bus.publish({ id: 'evt-dup', event: 'conductor:x', payload: { k: 1 } });
    await eventually(() => (cluster.deliveryAttempts.filter((d) => d.id === 'evt-dup' && d.outcome === 'SUCCESS').length === 2 ? true : undefined), 'two acks');
    expect([...a.events, ...b.events].filter((e) => e.id === 'evt-dup')).toHaveLength(1);
  });

  it('hands task completions from other services to the completion consumer; drops malformed ones', async () => {
    const [a, b] = apps;
    const publisher = a.client; // stands for another service's sidecar client
    await publisher.pubsub.publish('events', 'task-completions', { workflowId: 'wf-9', taskRefName: 'approve', status: 'COMPLETED', output: { ok: true } });
    await publisher.pubsub.publish('events', 'task-completions', { workflowId: 'wf-9', status: 'COMPLETED' });
    const got = await eventually(() => [...a.completions, ...b.completions].find((c) => c.workflowId === 'wf-9'), 'completion');
    expect(got).toEqual({ workflowId: 'wf-9', taskRefName: 'approve', status: 'COMPLETED', output: { ok: true } });
    await eventually(() => (cluster.deliveryAttempts.some((d) => d.topic === 'task-completions' && d.outcome === 'DROP') ? true : undefined), 'drop');
  });

  it('delivers messages of a subscribed dapr:<pubsub>:<topic> to the event consumer', async () => {
    const [a, b] = apps;
    await a.client.pubsub.publish('events', 'orders', { orderId: 'o-1' });
    const got = await eventually(() => [...a.events, ...b.events].find((e) => e.event === 'dapr:events:orders'), 'external event');
    expect(got.payload).toEqual({ orderId: 'o-1' });
    expect(typeof got.id).toBe('string');
    expect(got.lineage).toBeUndefined(); // another service's message: a start on it is a root
  });

  it('what an execution publishes to a dapr:<pubsub>:<topic> comes back with its lineage (CloudEvent extension attributes)', async () => {
    const [a, b] = apps;
    const lineage = { rootWorkflowId: 'root-2', generation: 5 };
    await a.bus.publish({ id: 'evt-ext-lineage', event: 'dapr:events:orders', payload: { orderId: 'o-2' }, lineage });
    const got = await eventually(() => [...a.events, ...b.events].find((e) => e.id === 'evt-ext-lineage'), 'external event');
    expect(got).toEqual({ id: 'evt-ext-lineage', event: 'dapr:events:orders', payload: { orderId: 'o-2' }, lineage });
  });

  it('moves actors of a removed instance to the survivor, state intact', async () => {
    const [a, b] = apps;
    const ids = Array.from({ length: 8 }, (_, i) => `move-${i}`);
    for (const id of ids) await a.host.invoke('Counter', id, 'increment', { by: 5 });
    const onB = ids.filter((id) => cluster.placementOf('Counter', id) === b.port);
    expect(onB.length).toBeGreaterThan(0);
    await stopApp(b);
    for (const id of ids) {
      const r = await a.host.invoke<{ count: number; host: string }>('Counter', id, 'increment', { by: 1 });
      expect(r).toEqual({ count: 6, host: 'A' });
    }
    await launch('B2');
  });

  it("stop() deactivates the instance's actors after their turns and refuses new callbacks", async () => {
    const c = await launch('C');
    const id = Array.from({ length: 50 }, (_, i) => `stop-${i}`).find((x) => cluster.placementOf('Counter', x) === c.port)!;
    await c.host.invoke('Counter', id, 'increment', { by: 1 });
    await c.host.stop();
    expect(c.deactivations).toContain(`Counter/${id}`);
    const res = await request(`http://127.0.0.1:${c.port}/actors/Counter/${id}/method/get`, { method: 'PUT', headers: { 'dapr-api-token': APP_TOKEN } });
    expect(res.statusCode).toBe(503);
    await res.body.dump();
    await stopApp(c);
  });

  it('a reminder survives the restart of the app instance that armed it', async () => {
    const id = Array.from({ length: 50 }, (_, i) => `survive-${i}`).find((x) => hostName(cluster.placementOf('Counter', x)) === 'A')!;
    const a = apps.find((x) => x.name === 'A')!;
    await a.host.invoke('Counter', id, 'arm', { inMs: 1500 });
    const port = a.port;
    await stopApp(a);
    const restarted = await launch('A-restarted', port); // same port, new process state
    await eventually(
      async () => ((await restarted.host.invoke<{ fired: number }>('Counter', id, 'get')).fired === 1 ? true : undefined),
      'reminder after restart',
    );
    const fired = cluster.reminderFires.filter((f) => f.id === id && f.status === 200);
    expect(fired).toHaveLength(1);
  });
});
