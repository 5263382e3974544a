import { ADMIN_KEY } from '../support/auth-baton';
import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensureJavaClient, javaMissing, observed, runScenarios, type ScenarioReport } from '../support/sdk-runtimes';

// Users, groups and grants through the official Java client's OrkesAuthorizationClient
// (test/sdk/java/src/.../AuthorizationScenarios.java), against Baton with auth on and the client signing in with a key.

engineSuite('java', javaMissing())('conductor-client (Java): users, groups and grants', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `javaauthz_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const { java, classpath } = ensureJavaClient();
    baton = await startBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
    const env = { ...process.env, CONDUCTOR_SERVER_URL: undefined, CONDUCTOR_AUTH_KEY: undefined, CONDUCTOR_AUTH_SECRET: undefined };
    const args = ['-Xmx256m', '-cp', classpath, 'dev.baton.sdk.AuthorizationScenarios', baton.url, prefix, ADMIN_KEY.keyId, ADMIN_KEY.keySecret];
    ({ report } = await runScenarios(java, args, { env }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
  });

  test('without a key the client is refused (401): auth is really on', () => {
    expect(observed(report, 'without_key')).toMatchObject({ status: 401 });
  });

  test('OrkesAuthorizationClient: users, groups, members, grants listed per target, user and group, removed', () => {
    const [user, group, wf] = [`${prefix}_user`, `${prefix}_group`, `${prefix}_wf`];
    expect(observed(report, 'authorization_client')).toMatchObject({
      created: [user, 'Java User', 'USER'],
      group: [group, 'java group'],
      members: [user],
      userGroups: [group],
      listed: true,
      onTarget: { EXECUTE: [`USER:${user}`], READ: [`GROUP:${group}`, `USER:${user}`] },
      forUser: [`${wf}:[READ, EXECUTE]`],
      forGroup: [`${wf}:[READ]`],
      afterRemove: ['READ'],
      membersAfter: 0,
      gone: 404,
    });
  });
});
