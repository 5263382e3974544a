import type { Logger } from 'pino';
import type { Task, WorkflowRecord } from '../model/execution';
import type { ExecutionCommit, ExecutionStore, StoredExecution } from '../store/ports';
import type { ExternalPayloads } from './external-payloads';
import { executionPayloadKey } from './payload-keys';

// Keeps large payloads out of execution rows, as Conductor's ExternalPayloadStorageUtils does: at a
// commit, a workflow input or output, or a task input or output, above its threshold (or already at
// a path that still holds it) is written to the object store and the row keeps {} and the path. At a
// load the payloads come back, so the engine always sees them whole. The record in memory gains the
// path too, as a reload would give it; the API answers such payloads as Conductor does (model/payload-view.ts).

type Payload = Record<string, unknown>;
type PathField = 'externalInputPayloadStoragePath' | 'externalOutputPayloadStoragePath';

const setPath = (record: Partial<Record<PathField, string>>, field: PathField, path: string | undefined): void => {
  if (path === undefined) delete record[field];
  else record[field] = path;
};

export class ExternalizingExecutionStore implements ExecutionStore {
  constructor(
    private readonly inner: ExecutionStore,
    private readonly payloads: ExternalPayloads,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  get taskLogLimits(): ExecutionStore['taskLogLimits'] {
    return this.inner.taskLogLimits;
  }

  async commit(c: ExecutionCommit): Promise<void> {
    const workflow = c.workflowUnchanged ? storedWorkflow(c.workflow) : await this.placeWorkflow(c.workflow);
    const upsertTasks = await Promise.all(c.upsertTasks.map((t) => this.placeTask(t)));
    await this.inner.commit({ ...c, workflow, upsertTasks });
  }

  private async placeWorkflow(w: WorkflowRecord): Promise<WorkflowRecord> {
    const threshold = this.payloads.settings.workflowThresholdBytes;
    const [inPath, outPath] = await Promise.all([
      this.payloads.place(w.input, w.externalInputPayloadStoragePath, threshold, (d) => executionPayloadKey(w.workflowId, {}, 'input', d)),
      this.payloads.place(w.output, w.externalOutputPayloadStoragePath, threshold, (d) => executionPayloadKey(w.workflowId, {}, 'output', d)),
    ]);
    setPath(w, 'externalInputPayloadStoragePath', inPath);
    setPath(w, 'externalOutputPayloadStoragePath', outPath);
    return storedWorkflow(w);
  }

  private async placeTask(t: Task): Promise<Task> {
    const threshold = this.payloads.settings.taskThresholdBytes;
    const owner = { taskId: t.taskId };
    const [inPath, outPath] = await Promise.all([
      this.payloads.place(t.inputData, t.externalInputPayloadStoragePath, threshold, (d) => executionPayloadKey(t.workflowInstanceId, owner, 'input', d)),
      this.payloads.place(t.outputData, t.externalOutputPayloadStoragePath, threshold, (d) => executionPayloadKey(t.workflowInstanceId, owner, 'output', d)),
    ]);
    setPath(t, 'externalInputPayloadStoragePath', inPath);
    setPath(t, 'externalOutputPayloadStoragePath', outPath);
    return { ...t, inputData: inPath ? {} : t.inputData, outputData: outPath ? {} : t.outputData };
  }

  async load(workflowId: string): Promise<StoredExecution | undefined> {
    const s = await this.inner.load(workflowId);
    if (!s) return s;
    const w = s.workflow;
    const [input, output, tasks] = await Promise.all([
      this.fetched(w.externalInputPayloadStoragePath, w.input, workflowId),
      this.fetched(w.externalOutputPayloadStoragePath, w.output, workflowId),
      Promise.all(s.tasks.map((t) => this.withPayloads(t))),
    ]);
    return { ...s, workflow: { ...w, input, output }, tasks };
  }

  revOf(workflowId: string): Promise<number | undefined> {
    return this.inner.revOf(workflowId);
  }

  async getTask(taskId: string): Promise<Task | undefined> {
    const t = await this.inner.getTask(taskId);
    return t && this.withPayloads(t);
  }

  private async withPayloads(t: Task): Promise<Task> {
    if (!t.externalInputPayloadStoragePath && !t.externalOutputPayloadStoragePath) return t;
    const [inputData, outputData] = await Promise.all([
      this.fetched(t.externalInputPayloadStoragePath, t.inputData, t.workflowInstanceId),
      this.fetched(t.externalOutputPayloadStoragePath, t.outputData, t.workflowInstanceId),
    ]);
    return { ...t, inputData, outputData };
  }

  /** The payload at `path`; when it is gone the row's own (empty) one, with a warning: the execution still loads. */
  private async fetched(path: string | undefined, inline: Payload, workflowId: string): Promise<Payload> {
    if (!path) return inline;
    const value = await this.payloads.fetch(path);
    if (value) return value;
    this.log.warn({ workflowId, path }, 'an external payload of the execution is missing from the object store');
    return inline;
  }

  async remove(workflowId: string): Promise<void> {
    const s = await this.inner.load(workflowId);
    await this.inner.remove(workflowId);
    if (!s) return;
    const named = [s.workflow, ...s.tasks]
      .flatMap((r) => [r.externalInputPayloadStoragePath, r.externalOutputPayloadStoragePath])
      .filter((p): p is string => !!p);
    // The row is gone; objects left behind by a failure are under the execution's prefix, found by listing it.
    await this.payloads
      .removeExecution(workflowId, named)
      .catch((err: unknown) => this.log.warn({ err, workflowId }, 'removing the external payloads of an execution failed'));
  }

  workflowIdOfTask(taskId: string): Promise<string | undefined> {
    return this.inner.workflowIdOfTask(taskId);
  }
  runningWorkflowIds(name: string, version?: number): Promise<string[]> {
    return this.inner.runningWorkflowIds(name, version);
  }
  workflowIdsByCorrelationId(name: string, correlationId: string, includeClosed: boolean): Promise<string[]> {
    return this.inner.workflowIdsByCorrelationId(name, correlationId, includeClosed);
  }
  idsNeedingRecovery(): AsyncIterable<string> {
    return this.inner.idsNeedingRecovery();
  }
  listWorkflowIds(): AsyncIterable<string> {
    return this.inner.listWorkflowIds();
  }
  appendTaskLogs(logs: Parameters<ExecutionStore['appendTaskLogs']>[0]): Promise<number> {
    return this.inner.appendTaskLogs(logs);
  }
  taskLogs(taskId: string): ReturnType<ExecutionStore['taskLogs']> {
    return this.inner.taskLogs(taskId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The row's form of a workflow record whose paths are settled: payloads at a path are {}. */
function storedWorkflow(w: WorkflowRecord): WorkflowRecord {
  if (!w.externalInputPayloadStoragePath && !w.externalOutputPayloadStoragePath) return w;
  return { ...w, input: w.externalInputPayloadStoragePath ? {} : w.input, output: w.externalOutputPayloadStoragePath ? {} : w.output };
}
