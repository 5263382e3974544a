import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { ensurePythonSdk, observed, pythonMissing, runScenarios, sdkDir, type ScenarioReport } from '../support/sdk-runtimes';
import { join } from 'node:path';

// Baton driven through the official Python SDK, conductor-python (pinned in test/sdk/python/requirements.txt):
// test/sdk/python/scenarios.py runs every scenario against a real embedded Baton and reports what it saw.

const suite = engineSuite('python3', pythonMissing());

suite('conductor-python against Baton', () => {
  let baton: TestBaton;
  let report: ScenarioReport;
  const prefix = `py_${Date.now().toString(36)}`;

  beforeAll(async () => {
    // First run: a venv and a pip install from PyPI (about 20 s); later runs reuse the cached venv.
    const python = ensurePythonSdk();
    baton = await startBaton();
    const env = {
      ...process.env,
      CONDUCTOR_WORKER_ISOLATION: undefined,
      CONDUCTOR_SERVER_URL: undefined,
      CONDUCTOR_AUTH_KEY: undefined,
      CONDUCTOR_AUTH_SECRET: undefined,
      CONDUCTOR_LOG_LEVEL: 'WARNING',
    };
    ({ report } = await runScenarios(python, [join(sdkDir, 'python', 'scenarios.py'), baton.url, prefix], { cwd: join(sdkDir, 'python'), env }));
  }, 600_000);

  afterAll(async () => {
    await baton?.stop();
  });

  test('MetadataClient registers, updates and lists task definitions', () => {
    expect(observed(report, 'metadata_task_defs')).toMatchObject({ before: 'python', after: 'python, updated', listed: true, retryCount: 1 });
  });

  test('WorkflowExecutor registers a workflow definition (ConductorWorkflow), reads it back and unregisters it', () => {
    expect(observed(report, 'metadata_workflow_defs')).toMatchObject({ version: 1, description: 'first', gone: 404 });
  });

  test('TaskHandler workers complete a two-task workflow; status with output', () => {
    const r = observed(report, 'workers_complete_a_workflow');
    expect(r).toMatchObject({
      status: 'COMPLETED',
      output: { last: { doubled: 42, worker: 'python' } },
      statusCall: 'COMPLETED',
      statusOutput: { last: { doubled: 42 } },
    });
    expect(r.tasks).toEqual([expect.objectContaining({ ref: 't1', status: 'COMPLETED' }), expect.objectContaining({ ref: 't2', status: 'COMPLETED' })]);
  });

  test("a worker's exception fails the workflow with its message; retry adds an attempt, restart starts over", () => {
    const r = observed(report, 'failing_worker_then_retry_and_restart');
    expect(r).toMatchObject({ status: 'FAILED', reason: 'python worker refused' });
    expect(r.afterRetry).toEqual([expect.objectContaining({ ref: 't1', status: 'FAILED' }), expect.objectContaining({ ref: 't1', status: 'FAILED' })]);
    expect(r.afterRestart).toEqual([expect.objectContaining({ ref: 't1', status: 'FAILED' })]);
  });

  test('search finds the completed workflow by type and status', () => {
    expect(observed(report, 'search_and_correlation')).toMatchObject({ hits: 1, statuses: ['COMPLETED'] });
  });

  test('polling by hand: IN_PROGRESS with callbackAfterSeconds 0 hands the task out again; completed by id and by reference name', () => {
    const r = observed(report, 'manual_polling_and_updates');
    expect(r).toMatchObject({
      sameTask: true,
      inputN: 5,
      secondRef: 't2',
      status: 'COMPLETED',
      output: { last: { byRef: true } },
      first: { status: 'COMPLETED', output: { seen: 5 }, workerId: 'py-manual' },
    });
  });

  test("Orkes' upgrade moves a running execution to version 2: t0 SKIPPED with its output, t2 runs with the new input", () => {
    expect(observed(report, 'upgrade_running_workflow')).toMatchObject({
      version: 2,
      tasks: [
        { ref: 't1', status: 'SCHEDULED' },
        { ref: 't0', status: 'SKIPPED' },
      ],
      status: 'COMPLETED',
      output: { skipped: { by: 'python' }, last: { doubled: 8, worker: 'python' } },
      refusedAfterEnd: 409,
    });
  });

  test('pause, resume and terminate with a reason', () => {
    expect(observed(report, 'pause_resume_terminate')).toMatchObject({
      paused: 'PAUSED',
      resumed: 'RUNNING',
      status: 'TERMINATED',
      reason: 'stopped by python',
      tasks: [{ ref: 't1', status: 'CANCELED' }],
    });
  });

  test('rerun from a task with new task input runs it and what follows again', () => {
    expect(observed(report, 'rerun_from_a_task')).toMatchObject({
      firstRun: 'COMPLETED',
      rerunInput: { n: 7 },
      afterRerun: 'COMPLETED',
      output: { last: { doubled: 6, worker: 'python' } },
    });
  });

  // What the SDK sends where a JSON client would not: Python's `True`/`False` in query strings and a
  // log line as a bare body under `Content-Type: application/json` (test/api/sdk-spellings.test.ts).
  test('get_by_correlation_ids sends includeClosed=True (Python spelling) and finds the closed execution', () => {
    expect(observed(report, 'correlation_ids')).toMatchObject({ correlated: { [`${prefix}_corr`]: ['COMPLETED'] } });
  });

  test('add_task_log posts the line as a bare text body, which is the line', () => {
    expect(observed(report, 'task_logs')).toMatchObject({ logs: ['from python'] });
  });

  test('remove_workflow sends archiveWorkflow=False and the execution is gone', () => {
    expect(observed(report, 'remove_workflow')).toMatchObject({ removed: 404 });
  });
  test('YIELD holds its execution until a signal; BLOCKING_TASK answers the next YIELD, the last signal completes it, FAILED fails it', () => {
    expect(observed(report, 'yield_and_signal')).toMatchObject({
      waiting: [['y1', 'YIELD']],
      polled: [],
      first: { type: 'BLOCKING_TASK', task: 'y2' },
      second: { type: 'TARGET_WORKFLOW', status: 'COMPLETED' },
      status: 'COMPLETED',
      outputs: { y1: { approved: true }, y2: { last: 1 } },
      failedStatus: 'FAILED',
    });
  });
});
