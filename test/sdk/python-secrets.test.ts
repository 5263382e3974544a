import { join } from 'node:path';
import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensurePythonSdk, observed, pythonMissing, runScenarios, sdkDir, type ScenarioReport } from '../support/sdk-runtimes';

// Secrets and tags through the official Python SDK (test/sdk/python/secrets_scenarios.py), which
// sends a secret's value unquoted under Content-Type application/json.

engineSuite('python3', pythonMissing())('conductor-python: secrets and tags', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `pysec_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const python = ensurePythonSdk();
    baton = await startBaton();
    const env = {
      ...process.env,
      CONDUCTOR_SERVER_URL: undefined,
      CONDUCTOR_AUTH_KEY: undefined,
      CONDUCTOR_AUTH_SECRET: undefined,
      CONDUCTOR_LOG_LEVEL: 'WARNING',
    };
    ({ report } = await runScenarios(python, [join(sdkDir, 'python', 'secrets_scenarios.py'), baton.url, prefix], { cwd: join(sdkDir, 'python'), env }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
  });

  test('SecretClient: put, get, exists, list, tags, delete', () => {
    expect(observed(report, 'secret_client')).toMatchObject({
      got: 'python-value',
      exists: true,
      listed: true,
      tags: [{ key: 'owner', value: 'python' }],
      tagsAfter: [],
      gone: 404,
      existsAfter: false,
    });
  });

  test('a polled task carries the secret; the stored task keeps the reference', () => {
    expect(observed(report, 'secret_reaches_polled_task')).toMatchObject({
      received: 'Bearer token-for-python',
      stored: `Bearer \${workflow.secrets.${prefix}_token}`,
    });
  });

  test('MetadataClient tags on workflow and task definitions', () => {
    expect(observed(report, 'metadata_tags')).toMatchObject({
      workflow: [
        { key: 'b', value: '2' },
        { key: 'c', value: '3' },
      ],
      task: [{ key: 'y', value: '2' }],
    });
  });
});
