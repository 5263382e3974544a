import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensureJavaClient, javaMissing, observed, runScenarios, type ScenarioReport } from '../support/sdk-runtimes';

// Baton driven through the official Java client, org.conductoross:conductor-client (pinned in
// test/sdk/java/pom.xml): test/sdk/java/src/.../Scenarios.java runs every scenario against a real
// embedded Baton and reports what it saw. The client 6.0.0 is compiled for Java 21, so the test
// compiles and runs it with a JDK 21+ (the machine's default Java 17 cannot load it).

const suite = engineSuite('java', javaMissing());

suite('conductor-client (Java) against Baton', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `java_${Date.now().toString(36)}`;

  beforeAll(async () => {
    // First run: Maven fetches the client (about 40 s) and javac compiles; later runs reuse the cache.
    const { java, classpath } = ensureJavaClient();
    baton = await startBaton();
    const env = { ...process.env, CONDUCTOR_SERVER_URL: undefined, CONDUCTOR_AUTH_KEY: undefined, CONDUCTOR_AUTH_SECRET: undefined };
    ({ report } = await runScenarios(java, ['-Xmx256m', '-cp', classpath, 'dev.baton.sdk.Scenarios', baton.url, prefix], { env }));
  }, 600_000);

  afterAll(async () => {
    await baton?.stop();
  });

  test('MetadataClient registers task definitions in bulk, updates one and lists them', () => {
    expect(observed(report, 'metadata_task_defs')).toMatchObject({ after: 'java, updated', listed: true, retryCount: 1 });
  });

  test('MetadataClient registers two versions of a workflow, reads latest and v1, unregisters v1', () => {
    expect(observed(report, 'metadata_workflow_defs')).toMatchObject({
      latest: { version: 2, description: 'second' },
      v1: { version: 1, description: 'first', tasks: [`${prefix}_worked`] },
      gone: 404,
    });
  });

  test('TaskRunnerConfigurer workers complete a two-task workflow; status summary', () => {
    const r = observed(report, 'workers_complete_a_workflow');
    expect(r).toMatchObject({ status: 'COMPLETED', output: { last: { doubled: 42, worker: 'java' } }, statusSummary: 'COMPLETED' });
    expect(r.tasks).toEqual([expect.objectContaining({ ref: 't1', status: 'COMPLETED' }), expect.objectContaining({ ref: 't2', status: 'COMPLETED' })]);
  });

  test("a worker's exception fails the workflow; retryLastFailedTask adds an attempt, restart starts over", () => {
    const r = observed(report, 'failing_worker_then_retry_and_restart');
    expect(r).toMatchObject({ status: 'FAILED' });
    expect(String(r.reason)).toContain('java worker refused');
    expect(r.afterRetry).toEqual([expect.objectContaining({ ref: 't1', status: 'FAILED' }), expect.objectContaining({ ref: 't1', status: 'FAILED' })]);
    expect(r.afterRestart).toEqual([expect.objectContaining({ ref: 't1', status: 'FAILED' })]);
  });

  test('search finds the completed workflow; getWorkflows by correlation id', () => {
    expect(observed(report, 'search_and_correlation')).toMatchObject({ totalHits: 1, types: [`${prefix}_wf_workers`], byCorrelation: ['COMPLETED'] });
  });

  test('polling by hand: IN_PROGRESS hands the task out again, update-v2 returns the next task, update by reference name', () => {
    expect(observed(report, 'manual_polling_and_updates')).toMatchObject({
      sameTask: true,
      inputN: 5,
      nextRef: 't2',
      status: 'COMPLETED',
      output: { last: { byRef: true } },
      first: { status: 'COMPLETED', output: { seen: 5 }, workerId: 'java-manual' },
    });
  });

  test('pause, resume and terminate with a reason', () => {
    expect(observed(report, 'pause_resume_terminate')).toMatchObject({
      paused: 'PAUSED',
      resumed: 'RUNNING',
      status: 'TERMINATED',
      reason: 'stopped by java',
      tasks: [{ ref: 't1', status: 'CANCELED' }],
    });
  });

  test('rerun from a task with new task input keeps the id and runs what follows again', () => {
    expect(observed(report, 'rerun_from_a_task')).toMatchObject({
      firstRun: 'COMPLETED',
      sameId: true,
      rerunInput: { n: 7 },
      afterRerun: 'COMPLETED',
      output: { last: { doubled: 6, worker: 'java' } },
    });
  });

  test('deleteWorkflow removes a terminated workflow', () => {
    expect(observed(report, 'remove_workflow')).toMatchObject({ removed: 404 });
  });

  // The client posts the log line as a bare text body under a JSON content type; it is the line (test/api/sdk-spellings.test.ts).
  test('logMessageForTask posts the line as a bare text body, which is the line', () => {
    expect(observed(report, 'task_logs')).toMatchObject({ logs: ['from java'] });
  });

  test('POST /api/workflow/correlated/batch (getWorkflowsByNamesAndCorrelationIds), an Orkes endpoint Conductor OSS 3.32.3 lacks', () => {
    expect(observed(report, 'correlation_batch')).toMatchObject({ correlated: { [`${prefix}_corr`]: ['COMPLETED'] } });
  });
  test('WorkflowClient.upgradeRunningWorkflow moves a running execution to version 2: t0 SKIPPED with its output, t2 runs with the new input', () => {
    expect(observed(report, 'upgrade_running_workflow')).toMatchObject({
      version: 2,
      tasks: [
        { ref: 't1', status: 'SCHEDULED' },
        { ref: 't0', status: 'SKIPPED' },
      ],
      status: 'COMPLETED',
      output: { skipped: { by: 'java' }, last: { doubled: 10, worker: 'java' } },
      refusedAfterEnd: 409,
    });
  });
  test('YIELD holds its execution until TaskClient.signal; BLOCKING_TASK answers the next YIELD, the last signal completes it, FAILED fails it', () => {
    expect(observed(report, 'yield_and_signal')).toMatchObject({
      waiting: [{ ref: 'y1', status: 'IN_PROGRESS', type: 'YIELD' }],
      polled: [],
      first: ['BLOCKING_TASK', 'y2'],
      second: ['TARGET_WORKFLOW', 'COMPLETED'],
      status: 'COMPLETED',
      outputs: { y1: { approved: true }, y2: { last: 1 } },
      failedStatus: 'FAILED',
    });
  });
});
