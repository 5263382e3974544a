import { join } from 'node:path';
import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensurePythonSdk, observed, pythonMissing, runScenarios, sdkDir, type ScenarioReport } from '../support/sdk-runtimes';

// External payload storage through the official Python SDK (test/sdk/python/payload_scenarios.py): its location
// call and payload path fields, with the uploads and downloads a Python user makes with them (conductor-python
// 2.0.0 makes none by itself). Baton keeps everything above 4 KB outside its rows.

engineSuite('python3', pythonMissing())('conductor-python: external payload storage', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `pypay_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const python = ensurePythonSdk();
    baton = await startBaton({ BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES: '4096', BATON_TASK_PAYLOAD_THRESHOLD_BYTES: '4096' });
    const env = {
      ...process.env,
      CONDUCTOR_SERVER_URL: undefined,
      CONDUCTOR_AUTH_KEY: undefined,
      CONDUCTOR_AUTH_SECRET: undefined,
      CONDUCTOR_LOG_LEVEL: 'WARNING',
    };
    ({ report } = await runScenarios(python, [join(sdkDir, 'python', 'payload_scenarios.py'), baton.url, prefix], { cwd: join(sdkDir, 'python'), env }));
  }, 600_000);
  afterAll(async () => {
    await baton?.stop();
  });

  test('a start and an update name uploaded payloads; large inputs and outputs come back through READ locations', () => {
    const r = observed(report, 'large_payloads');
    expect(r).toMatchObject({
      status: 'COMPLETED',
      workflowInput: {},
      polledInput: {},
      taskInputPath: expect.stringMatching(/^payloads\/executions\/[^/]+\/task-[^/]+-input-[0-9a-f]{32}\.json$/),
      taskInputMarker: 'python-marker',
      taskInputBlobLength: 8000,
      workflowOutput: {},
      workflowOutputPath: expect.stringMatching(/^payloads\/executions\/[^/]+\/workflow-output-[0-9a-f]{32}\.json$/),
      downloadedOutputEchoed: 'python-marker',
      downloadedOutputResultLength: 'python-output-'.length + 8000,
    });
    expect(r.workflowInputPath).toBe(r.inputPath);
    expect(r.taskOutputPath).toBe(r.outputPath);
  });
});
