import { randomUUID } from 'node:crypto';
import type { WorkflowDef } from '../model/definitions';
import { walkTasks } from '../model/definitions';
import type { Task, Workflow } from '../model/execution';
import type { StartWorkflowRequest } from '../model/requests';
import { isTerminalWorkflow } from '../model/statuses';
import type { ActorHost } from '../runtime/ports';
import type { ExecutionStore } from '../store/ports';
import { checkDefinitionSize } from './definition-limits';
import { badRequest, notFound } from './errors';
import type { MetadataService } from './metadata-service';

/** The workflow side of the front end: resolves definitions, starts executions, reads them. */
export class WorkflowService {
  constructor(
    private readonly host: ActorHost,
    private readonly store: ExecutionStore,
    private readonly metadata: MetadataService,
  ) {}

  async resolveDef(req: StartWorkflowRequest): Promise<WorkflowDef> {
    if (req.workflowDef) {
      // An inline definition is snapshotted with the execution like a registered one: the same size limit applies.
      checkDefinitionSize('WorkflowDef', req.workflowDef.name, req.workflowDef, this.metadata.limits);
      return req.workflowDef as WorkflowDef;
    }
    const def = await this.metadata.getWorkflowDef(req.name, req.version ?? undefined);
    if (!def) throw notFound(`No such workflow found by name: ${req.name}, version: ${req.version ?? null}`);
    return def;
  }

  /** Pins the version of every SUB_WORKFLOW without one, as Conductor does at start. */
  private async pinSubWorkflows(def: WorkflowDef): Promise<WorkflowDef> {
    const unpinned = [...walkTasks(def.tasks)].filter((t) => t.type === 'SUB_WORKFLOW' && t.subWorkflowParam && !t.subWorkflowParam.workflowDefinition && t.subWorkflowParam.version == null && t.subWorkflowParam.name);
    if (unpinned.length === 0) return def;
    const copy = structuredClone(def);
    for (const t of walkTasks(copy.tasks)) {
      const p = t.subWorkflowParam;
      if (t.type !== 'SUB_WORKFLOW' || !p || p.workflowDefinition || p.version != null || !p.name) continue;
      const child = await this.metadata.getWorkflowDef(p.name);
      if (!child) throw notFound(`No such workflow found by name: ${p.name}, version: null`);
      p.version = child.version;
    }
    return copy;
  }

  async start(req: StartWorkflowRequest, opts: { workflowId?: string; event?: string } = {}): Promise<string> {
    if (req.input === null && !req.externalInputPayloadStoragePath) throw badRequest('NULL input passed when starting workflow');
    const def = await this.pinSubWorkflows(await this.resolveDef(req));
    const workflowId = opts.workflowId ?? randomUUID();
    await this.host.invoke('WorkflowActor', workflowId, 'start', { workflowId, def, request: req, event: opts.event, fresh: opts.workflowId === undefined });
    return workflowId;
  }

  async get(workflowId: string, includeTasks: boolean): Promise<Workflow> {
    const s = await this.store.load(workflowId);
    if (!s) throw notFound(`No such workflow found by id: ${workflowId}`);
    return { ...s.workflow, tasks: includeTasks ? s.tasks.map(withComputed) : [] };
  }

  command<T = unknown>(workflowId: string, method: string, arg?: unknown): Promise<T> {
    return this.host.invoke<T>('WorkflowActor', workflowId, method, arg);
  }

  /**
   * Retry (Conductor's WorkflowExecutor.retry). With resumeSubworkflowTasks, when the failed task is a SUB_WORKFLOW the
   * retry happens inside the deepest failed child, whose revival brings the parent back to RUNNING.
   */
  async retry(workflowId: string, resumeSubworkflowTasks: boolean): Promise<void> {
    if (resumeSubworkflowTasks) {
      const s = await this.store.load(workflowId);
      const failed = s?.tasks.filter((t) => !t.retried && ['FAILED', 'TIMED_OUT', 'CANCELED'].includes(t.status));
      const sub = failed?.length === 1 && failed[0]!.taskType === 'SUB_WORKFLOW' ? failed[0]! : undefined;
      if (s && isTerminalWorkflow(s.workflow.status) && sub?.subWorkflowId && (await this.exists(sub.subWorkflowId))) {
        return this.retry(sub.subWorkflowId, true);
      }
    }
    await this.host.invoke('WorkflowActor', workflowId, 'retry');
  }

  async exists(workflowId: string): Promise<boolean> {
    return (await this.store.load(workflowId)) !== undefined;
  }
}

/** Adds the computed getters Conductor serialises (Task.queueWaitTime, loopOverTask, taskDefinition). */
export function withComputed(t: Task): Task {
  const queueWaitTime = t.startTime > 0 ? t.startTime - t.scheduledTime : 0;
  return { ...t, queueWaitTime, loopOverTask: t.iteration > 0, ...(t.workflowTask.taskDefinition ? { taskDefinition: t.workflowTask.taskDefinition } : {}) };
}
