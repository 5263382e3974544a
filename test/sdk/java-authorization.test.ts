import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensureJavaClient, javaMissing, observed, runScenarios, type ScenarioReport } from '../support/sdk-runtimes';

// Users, groups and grants through the official Java client's OrkesAuthorizationClient
// (test/sdk/java/src/.../AuthorizationScenarios.java).

engineSuite('java', javaMissing())('conductor-client (Java): users, groups and grants', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `javaauthz_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const { java, classpath } = ensureJavaClient();
    baton = await startBaton();
    const env = { ...process.env, CONDUCTOR_SERVER_URL: undefined, CONDUCTOR_AUTH_KEY: undefined, CONDUCTOR_AUTH_SECRET: undefined };
    ({ report } = await runScenarios(java, ['-Xmx256m', '-cp', classpath, 'dev.baton.sdk.AuthorizationScenarios', baton.url, prefix], { env }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
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
