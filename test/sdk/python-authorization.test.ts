import { join } from 'node:path';
import { ADMIN_KEY } from '../support/auth-baton';
import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensurePythonSdk, observed, pythonMissing, runScenarios, sdkDir, type ScenarioReport } from '../support/sdk-runtimes';

// Users, groups, grants and custom roles through the official Python SDK's OrkesAuthorizationClient
// (test/sdk/python/authorization_scenarios.py), against Baton with auth on and the SDK signing in with a key.

engineSuite('python3', pythonMissing())('conductor-python: users, groups and grants', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `pyauthz_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const python = ensurePythonSdk();
    baton = await startBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
    const env = {
      ...process.env,
      CONDUCTOR_SERVER_URL: undefined,
      CONDUCTOR_AUTH_KEY: undefined,
      CONDUCTOR_AUTH_SECRET: undefined,
      CONDUCTOR_LOG_LEVEL: 'WARNING',
    };
    ({ report } = await runScenarios(python, [join(sdkDir, 'python', 'authorization_scenarios.py'), baton.url, prefix, ADMIN_KEY.keyId, ADMIN_KEY.keySecret], {
      cwd: join(sdkDir, 'python'),
      env,
    }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
  });

  test('users and groups: upsert, get, list, members added and removed, delete', () => {
    expect(observed(report, 'users_and_groups')).toMatchObject({
      created: { id: `${prefix}_user`, name: 'Py User', roles: ['USER'] },
      members: [`${prefix}_user`, `${prefix}_user2`],
      afterRemove: [`${prefix}_user`],
      fetchedName: 'Py User',
      group: { id: `${prefix}_group`, description: 'py group' },
      listed: true,
      goneUser: 404,
      goneGroup: 404,
    });
  });

  test('grants: granted, listed per target, user and group, checked, removed', () => {
    const wf = `${prefix}_granted_wf`;
    expect(observed(report, 'grants')).toMatchObject({
      onTarget: {
        READ: [
          ['GROUP', `${prefix}_grantees`],
          ['USER', `${prefix}_grantee`],
        ],
        EXECUTE: [['USER', `${prefix}_grantee`]],
      },
      forUser: [['WORKFLOW_DEF', wf, ['EXECUTE', 'READ']]],
      forGroup: [['WORKFLOW_DEF', wf, ['READ']]],
      checked: { READ: true, EXECUTE: true, DELETE: false },
      after: { READ: [['GROUP', `${prefix}_grantees`]] },
    });
  });

  test("a grant decides whether another application's key may start the workflow", () => {
    expect(observed(report, 'grant_decides_start')).toMatchObject({ open: null, refused: 403, granted: null });
  });

  test('custom roles: created, read, listed, updated, deleted; system names kept; an application holding one gets its permissions', () => {
    const name = `${prefix}_role`;
    expect(observed(report, 'custom_roles')).toMatchObject({
      created: { name, permissions: [{ name: 'READ_WORKFLOW_DEF' }] },
      fetched: { name, permissions: [{ name: 'READ_WORKFLOW_DEF' }] },
      listed: true,
      system: expect.arrayContaining(['ADMIN', 'METADATA_MANAGER', 'USER', 'WORKER', 'WORKFLOW_MANAGER']),
      builtIn: 400,
      unknown: 400,
      updated: { name, permissions: [{ name: 'READ_WORKFLOW_DEF' }, { name: 'EXECUTE_WORKFLOW_DEF' }] },
      // [read the definition, start it]
      before: [403, 403],
      held: [null, 403],
      widened: [null, null],
      removed: [403, 403],
      after: [403, 403],
      gone: 404,
    });
  });
});
