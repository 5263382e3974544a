import {
  ApplicationClient,
  EventClient,
  MetadataClient,
  TaskManager,
  WorkflowExecutor,
  orkesConductorClient,
  simpleTask,
  workflow,
} from '@io-orkes/conductor-javascript';
import { eventually } from '../support/baton';
import { ADMIN_KEY, raw, startAuthBaton, type AuthBaton } from '../support/auth-baton';
import { quietLogger, rejectionOf, uniqueName, waitForWorkflow, type SdkClient } from '../support/sdk';

// The official JS SDK (4.0.0), unchanged, against Baton with auth on: it asks POST /api/token with
// keyId/keySecret, sends the token in X-Authorization, and on a 401 whose `error` is EXPIRED_TOKEN
// (or INVALID_TOKEN) fetches a new token and retries once (its helpers/handleAuth.ts, fetchWithRetry.ts).

const SDK_ENV = ['CONDUCTOR_SERVER_URL', 'CONDUCTOR_AUTH_KEY', 'CONDUCTOR_AUTH_SECRET', 'CONDUCTOR_REFRESH_TOKEN_INTERVAL'];

let b: AuthBaton;
const clients: SdkClient[] = [];
const managers: TaskManager[] = [];

async function client(url: string, key?: { keyId: string; keySecret: string }): Promise<SdkClient> {
  const c = await orkesConductorClient({ serverUrl: url, logger: quietLogger, ...(key ?? {}) });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  for (const k of SDK_ENV) delete process.env[k];
  b = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
});
afterAll(async () => {
  await Promise.all(managers.filter((m) => m.isPolling).map((m) => m.stopPolling()));
  for (const c of clients) c.stopBackgroundRefresh();
  await b?.stop();
});

test('configured with keyId and keySecret, the SDK registers, starts and runs a workflow; a WORKER key works tasks but cannot terminate', async () => {
  const admin = await client(b.url, ADMIN_KEY);
  const apps = new ApplicationClient(admin);
  const app = await apps.createApplication(uniqueName('sdk_workers'));
  await apps.addApplicationRole(app.id, 'WORKER');
  const key = await apps.createAccessKey(app.id);
  const workerClient = await client(b.url, { keyId: key.id, keySecret: key.secret });

  const type = uniqueName('sdk_auth_task');
  const name = uniqueName('sdk_auth_wf');
  await new MetadataClient(admin).registerWorkflowDef(workflow(name, [simpleTask('only', type, { n: '${workflow.input.n}' })]));
  const executor = new WorkflowExecutor(admin);
  const id = await executor.startWorkflow({ name, version: 1, input: { n: 21 } });

  const manager = new TaskManager(
    workerClient,
    [{ taskDefName: type, execute: async (t) => ({ status: 'COMPLETED', outputData: { doubled: Number(t.inputData?.n) * 2 } }) }],
    {
      logger: quietLogger,
      options: { workerID: 'auth-sdk-worker', pollInterval: 50, concurrency: 1 },
    },
  );
  managers.push(manager);
  manager.startPolling();
  const done = await waitForWorkflow(executor, id, 'COMPLETED');
  expect(done.tasks?.[0]?.outputData).toEqual({ doubled: 42 });
  await manager.stopPolling();

  // A definition whose tasks no worker polls (the stopped manager may still hold a long poll on `type`).
  const idle = uniqueName('sdk_auth_idle');
  await new MetadataClient(admin).registerWorkflowDef(workflow(idle, [simpleTask('only', uniqueName('sdk_unpolled'), {})]));
  const second = await executor.startWorkflow({ name: idle, version: 1, input: {} });
  const refused = await rejectionOf(new WorkflowExecutor(workerClient).terminate(second, 'not allowed'));
  expect(refused?.message).toMatch(/Access denied: executions:manage/);
  expect((await executor.getWorkflow(second, false)).status).toBe('RUNNING');
});

test("ApplicationClient manages applications, access keys, roles and tags with the SDK's own calls", async () => {
  const apps = new ApplicationClient(await client(b.url, ADMIN_KEY));
  const app = await apps.createApplication(uniqueName('sdk_app'));
  expect(app).toMatchObject({
    id: expect.any(String),
    name: expect.stringMatching(/^sdk_app_/),
    createdBy: 'app:baton-admin',
    createTime: expect.any(Number),
    updateTime: expect.any(Number),
  });
  expect((await apps.getAllApplications()).map((a) => a.id)).toContain(app.id);
  expect(await apps.getApplication(app.id)).toMatchObject({ id: app.id, roles: [] });
  expect(await apps.updateApplication(app.id, 'renamed by the sdk')).toMatchObject({ id: app.id, name: 'renamed by the sdk' });

  // Baton answers an application with its roles (the SDK's type leaves them out); USER_READ_ONLY is Orkes's name of READ_ONLY.
  const roles = async () => ((await apps.getApplication(app.id)) as unknown as { roles: string[] }).roles;
  await apps.addApplicationRole(app.id, 'METADATA_MANAGER');
  await apps.addApplicationRole(app.id, 'USER_READ_ONLY');
  expect(await roles()).toEqual(['METADATA_MANAGER', 'READ_ONLY']);
  await apps.removeRoleFromApplicationUser(app.id, 'USER_READ_ONLY');
  expect(await roles()).toEqual(['METADATA_MANAGER']);
  expect((await rejectionOf(apps.addApplicationRole(app.id, 'PROMPT_MANAGER')))?.message).toMatch(/Unknown role PROMPT_MANAGER/);

  const key = await apps.createAccessKey(app.id);
  expect(key).toEqual({ id: expect.any(String), secret: expect.any(String) });
  expect(await apps.getAccessKeys(app.id)).toEqual([{ id: key.id, createdAt: expect.any(Number), status: 'ACTIVE' }]);
  expect(await apps.getAppByAccessKeyId(key.id)).toMatchObject({ id: app.id });
  expect(await apps.toggleAccessKeyStatus(app.id, key.id)).toMatchObject({ id: key.id, status: 'INACTIVE' });
  expect(await apps.toggleAccessKeyStatus(app.id, key.id)).toMatchObject({ id: key.id, status: 'ACTIVE' });

  await apps.addApplicationTags(app.id, [{ key: 'team', value: 'billing' }]);
  await apps.addApplicationTag(app.id, { key: 'env', value: 'prod' });
  expect(await apps.getApplicationTags(app.id)).toEqual([
    { key: 'team', value: 'billing' },
    { key: 'env', value: 'prod' },
  ]);
  await apps.deleteApplicationTag(app.id, { key: 'team', value: 'billing' });
  expect(await apps.getApplicationTags(app.id)).toEqual([{ key: 'env', value: 'prod' }]);

  await apps.deleteAccessKey(app.id, key.id);
  expect(await apps.getAccessKeys(app.id)).toEqual([]);
  await apps.deleteApplication(app.id);
  expect((await rejectionOf(apps.getApplication(app.id)))?.message).toMatch(/No such application/);
});

test("an event handler records its creator's application (Orkes' createdBy); an update keeps it and what a client sends is ignored", async () => {
  const admin = await client(b.url, ADMIN_KEY);
  const apps = new ApplicationClient(admin);
  const app = await apps.createApplication(uniqueName('sdk_events_app'));
  await apps.addApplicationRole(app.id, 'ADMIN');
  const key = await apps.createAccessKey(app.id);
  const events = new EventClient(admin);
  const [name, event] = [uniqueName('sdk_evt_by'), `jsSdkTest:${uniqueName('event')}`];
  const actions = [{ action: 'terminate_workflow' as const, terminate_workflow: { workflowId: '${id}' } }];
  await events.addEventHandler({ name, event, active: true, actions, createdBy: 'someone-else' });
  expect((await events.getEventHandlerByName(name)).createdBy).toBe('app:baton-admin');
  await new EventClient(await client(b.url, { keyId: key.id, keySecret: key.secret })).updateEventHandler({
    name,
    event,
    active: false,
    actions,
    createdBy: 'x',
  });
  expect(await events.getEventHandlerByName(name)).toMatchObject({ active: false, createdBy: 'app:baton-admin' });
});

test('an SDK without keys gets 401s: it cannot silently run without auth', async () => {
  const anonymous = await client(b.url);
  expect((await rejectionOf(new MetadataClient(anonymous).getAllTaskDefs()))?.message).toMatch(/Missing token/);
});

test('an expired token: the SDK fetches a new one and retries, the call succeeds', async () => {
  const short = await startAuthBaton({
    BATON_AUTH: 'on',
    BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
    BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
    BATON_AUTH_TOKEN_TTL_SECONDS: '1',
  });
  try {
    const c = await client(short.url, ADMIN_KEY);
    const first = (await c.getAuthenticationHeaders())?.['X-Authorization'];
    expect(first).toBeDefined();
    await eventually(async () => (await raw(short.port, 'GET', '/api/metadata/taskdefs', { token: first })).body?.error === 'EXPIRED_TOKEN', 10_000, 100);

    expect(Array.isArray(await new MetadataClient(c).getAllTaskDefs())).toBe(true);
    const second = (await c.getAuthenticationHeaders())?.['X-Authorization'];
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
  } finally {
    await short.stop();
  }
});
