import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensureJavaClient, javaMissing, observed, runScenarios, type ScenarioReport } from '../support/sdk-runtimes';

// External payload storage end to end through the official Java client (test/sdk/java/src/.../PayloadScenarios.java)
// with its thresholds at 1 KB: it uploads the large input and output and downloads the large task input and
// workflow output through Baton's locations; Baton keeps everything above 4 KB outside its rows.

engineSuite('java', javaMissing())('conductor-client (Java): external payload storage', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `javapay_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const { java, classpath } = ensureJavaClient();
    baton = await startBaton({ BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES: '4096', BATON_TASK_PAYLOAD_THRESHOLD_BYTES: '4096' });
    const env = { ...process.env, CONDUCTOR_SERVER_URL: undefined, CONDUCTOR_AUTH_KEY: undefined, CONDUCTOR_AUTH_SECRET: undefined };
    ({ report } = await runScenarios(java, ['-Xmx256m', '-cp', classpath, 'dev.baton.sdk.PayloadScenarios', baton.url, prefix], { env }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
  });

  test('a large input, task input, task output and workflow output travel through the object store; the workflow sees them whole', () => {
    expect(observed(report, 'large_payloads')).toMatchObject({
      status: 'COMPLETED',
      // The client uploaded the input and started with its path; the execution answers {} beside it.
      inputPath: expect.stringMatching(/^payloads\/workflow\/input\/[0-9a-f-]+\.json$/),
      input: {},
      // The worker got the task input whole: the client downloaded it at poll.
      worker: { marker: 'java-marker', blobLength: 8000 },
      // The worker's output was uploaded by the client and named on the update; the task keeps that path.
      taskOutputPath: expect.stringMatching(/^payloads\/task\/output\/[0-9a-f-]+\.json$/),
      taskOutput: {},
      // The workflow output (from the task's, over Baton's threshold) was stored by Baton and downloaded by getWorkflow.
      outputPath: expect.stringMatching(/^payloads\/executions\/[^/]+\/workflow-output-[0-9a-f]{32}\.json$/),
      outputResultLength: 'java-output-'.length + 8000,
      outputEchoed: 'java-marker',
    });
  });
});
