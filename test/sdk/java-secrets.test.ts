import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensureJavaClient, javaMissing, observed, runScenarios, type ScenarioReport } from '../support/sdk-runtimes';

// Secrets through the official Java client's OrkesSecretClient (test/sdk/java/src/.../SecretScenarios.java),
// which sends a value as a JSON string and reads it back as one.

engineSuite('java', javaMissing())('conductor-client (Java): secrets', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `javasec_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const { java, classpath } = ensureJavaClient();
    baton = await startBaton();
    const env = { ...process.env, CONDUCTOR_SERVER_URL: undefined, CONDUCTOR_AUTH_KEY: undefined, CONDUCTOR_AUTH_SECRET: undefined };
    ({ report } = await runScenarios(java, ['-Xmx256m', '-cp', classpath, 'dev.baton.sdk.SecretScenarios', baton.url, prefix], { env }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
  });

  test('OrkesSecretClient: put, get, exists, list, tags, delete', () => {
    expect(observed(report, 'secret_client')).toMatchObject({
      got: 'java-value with "quotes"',
      exists: true,
      listed: true,
      grantable: true,
      tags: ['owner=java'],
      tagsAfter: 0,
      existsAfter: false,
      gone: 404,
    });
  });
});
