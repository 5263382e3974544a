import { BatonError } from '../model/errors';
import type { Task, Workflow, WorkflowRecord } from '../model/execution';
import { Errors } from '../model/named-errors';
import type { ObjectStore } from '../objects/object-store';
import type { ExecutionStore } from '../store/ports';
import type { RetentionStore } from './ports';

/** An archived execution as GET /api/workflow/{id} answers it: the record it ended as, marked archived. */
export type ArchivedWorkflow = Workflow & { archived: true };

/** Executions the purge archived: found through the lookup row, read from the object store, never changed. */
export class ArchivedExecutions {
  constructor(
    private readonly retention: Pick<RetentionStore, 'archived'>,
    private readonly objects: Pick<ObjectStore, 'get'>,
    private readonly store: Pick<ExecutionStore, 'load'>,
  ) {}

  /** The archived execution, undefined when the id was never archived (or its object is gone). */
  async find(workflowId: string, includeTasks: boolean): Promise<ArchivedWorkflow | undefined> {
    const entry = await this.retention.archived(workflowId);
    const body = entry && (await this.objects.get(entry.key));
    if (!body) return undefined;
    const { workflow } = JSON.parse(body.toString('utf8')) as { workflow: WorkflowRecord & { tasks: Task[] } };
    return { ...workflow, tasks: includeTasks ? workflow.tasks : [], archived: true } as ArchivedWorkflow;
  }

  /**
   * A change refused for an execution that is not in the store: 409 when it is archived, else the error as it
   * was. A 503 counts too when the execution is gone: an activation still holding it in memory found its row
   * missing when it wrote (a stale write), and reloads for the next call.
   */
  async refusal(workflowId: string, err: unknown): Promise<unknown> {
    if (!(err instanceof BatonError)) return err;
    const notFound = err.code === Errors.WORKFLOW_NOT_FOUND.code;
    if (!notFound && err.status !== 503) return err;
    const entry = await this.retention.archived(workflowId).catch(() => undefined);
    if (!entry) return err;
    if (!notFound && (await this.store.load(workflowId).catch(() => 'unknown'))) return err;
    return Errors.WORKFLOW_ARCHIVED(workflowId, entry.status);
  }

  /** The client with every call's "not found" turned into the archived refusal where the id is archived. */
  refusing<T extends object>(client: T, workflowId: string): T {
    return new Proxy(client, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args)).catch(async (err: unknown) => {
            throw await this.refusal(workflowId, err);
          });
      },
    });
  }
}
