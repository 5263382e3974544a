import {
  MetadataClient,
  TaskClient,
  TaskManager,
  WorkflowExecutor,
  orkesConductorClient,
  type ConductorWorker,
  type Workflow,
} from '@io-orkes/conductor-javascript';
import { eventually, startBaton, type TestBaton } from './baton';

// Env the SDK reads before its config: cleared so the client talks to the embedded Baton only.
const SDK_ENV = [
  'CONDUCTOR_SERVER_URL',
  'CONDUCTOR_AUTH_KEY',
  'CONDUCTOR_AUTH_SECRET',
  'CONDUCTOR_REQUEST_TIMEOUT_MS',
  'CONDUCTOR_RETRY_SERVER_ERRORS',
  'CONDUCTOR_DISABLE_HTTP2',
  'CONDUCTOR_PROXY_URL',
];

/** Silent logger for the SDK (its default logger prints every poller start at INFO). */
export const quietLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export type SdkClient = Awaited<ReturnType<typeof orkesConductorClient>>;

/** An embedded Baton plus the official SDK's clients pointed at it. */
export interface SdkHarness {
  baton: TestBaton;
  client: SdkClient;
  executor: WorkflowExecutor;
  metadata: MetadataClient;
  tasks: TaskClient;
  /** Starts a TaskManager over `workers`; `stop()` of the harness stops it too. */
  startWorkers(workers: ConductorWorker[], options?: { pollInterval?: number; concurrency?: number }): WorkerRun;
  stop(): Promise<void>;
}

/** A polling TaskManager and what its runners reported. */
export interface WorkerRun {
  manager: TaskManager;
  /** Errors passed to the SDK's onError: worker exceptions and failed result updates. */
  errors: unknown[];
  /** Ids of tasks whose results the runners delivered successfully. */
  updatedTaskIds: string[];
  stop(): Promise<void>;
}

export async function startSdkHarness(): Promise<SdkHarness> {
  for (const k of SDK_ENV) delete process.env[k];
  const baton = await startBaton();
  const client = await orkesConductorClient({ serverUrl: baton.url, logger: quietLogger });
  const managers: TaskManager[] = [];
  return {
    baton,
    client,
    executor: new WorkflowExecutor(client),
    metadata: new MetadataClient(client),
    tasks: new TaskClient(client),
    startWorkers(workers, options = {}) {
      const errors: unknown[] = [];
      const updatedTaskIds: string[] = [];
      const manager = new TaskManager(client, workers, {
        logger: quietLogger,
        options: { workerID: 'sdk-test-worker', pollInterval: options.pollInterval ?? 50, concurrency: options.concurrency ?? 2 },
        onError: (e) => errors.push(e),
        eventListeners: [{ onTaskUpdateCompleted: (e) => void updatedTaskIds.push(e.taskId) }],
      });
      manager.startPolling();
      managers.push(manager);
      return { manager, errors, updatedTaskIds, stop: () => manager.stopPolling() };
    },
    async stop() {
      await Promise.all(managers.filter((m) => m.isPolling).map((m) => m.stopPolling()));
      await baton.stop();
    },
  };
}

export { uniqueName } from './names';

/** Waits (bounded) until the workflow reaches `status`; returns it with its tasks. */
export async function waitForWorkflow(executor: WorkflowExecutor, workflowId: string, status: string | string[], limitMs = 20_000): Promise<Workflow> {
  const wanted = Array.isArray(status) ? status : [status];
  return eventually(async () => {
    const wf = await executor.getWorkflow(workflowId, true);
    return wanted.includes(String(wf.status)) ? wf : undefined;
  }, limitMs);
}

/** Waits (bounded) until the workflow has a task with reference `ref` in one of `statuses`. */
export async function waitForTask(executor: WorkflowExecutor, workflowId: string, ref: string, statuses: string[], limitMs = 20_000) {
  return eventually(async () => {
    const wf = await executor.getWorkflow(workflowId, true);
    return (wf.tasks ?? []).find((t) => t.referenceTaskName === ref && statuses.includes(String(t.status)));
  }, limitMs);
}

/** Error bodies the SDK throws are plain objects (not Errors); this extracts what a test wants to assert on. */
export async function rejectionOf(p: Promise<unknown>): Promise<{ status?: number; message?: string } | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    const err = e as { status?: number; message?: string; cause?: { status?: number } };
    return { status: err.status ?? err.cause?.status, message: err.message };
  }
}
