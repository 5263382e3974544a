import type { Logger } from 'pino';
import type { WorkflowDef } from '../model/definitions';
import type { Effect } from '../model/effects';
import type { QueuePartitionAccess } from '../queues/ports';
import { workflowActor } from '../actors/protocol/workflow-protocol';
import { queueName } from '../model/effects';
import { taskById } from '../engine/task-lookup';
import type { ExecutionState } from '../engine/state';
import type { EventBus } from '../events/ports';
import type { TaskLimits, WakeUps } from '../limits/ports';
import type { ActorHost } from '../runtime/ports';
import { outsideTurn } from '../runtime/turn-context';
import type { ExecutionStore } from '../store/ports';
import type { Indexer } from './indexer';
import type { MetadataService } from './metadata-service';
import type { QueuePartitions } from './queues';
import { ApiError } from './errors';
import type { SchemaEnforcer } from './schema-enforcer';
import type { StartAdmission } from './start-admission';
import { childLineage, lineageOf } from '../model/lineage';

/** Carries out what turns owe: queue pushes and removals, child starts, parent notifications, events. */
export class EffectRunner {
  constructor(
    private readonly deps: {
      host: ActorHost;
      queues: QueuePartitionAccess;
      partitions: QueuePartitions;
      store: ExecutionStore;
      metadata: MetadataService;
      indexer: Indexer;
      bus: EventBus;
      limits: TaskLimits;
      wakeUps: WakeUps;
      log: Logger;
      /** Checks a child's input against its definition's input schema, as a start through the API is. */
      schemas?: SchemaEnforcer;
      /** Bounds the executions descending from one root; absent: unbounded (unit tests). */
      admission?: StartAdmission;
    },
  ) {}

  /** Queue-facing effects, awaited by the turn that produced them. */
  async runImmediate(_workflowId: string, effects: Effect[], state: ExecutionState): Promise<void> {
    if (effects.length === 0) return;
    const { partitions } = this.deps;
    const pushes = new Map<string, Array<{ taskId: string; workflowId: string; priority: number; visibleAt: number }>>();
    const ops: Promise<unknown>[] = [];
    for (const e of effects) {
      if (e.kind === 'enqueue') {
        const id = partitions.actorIdFor(e.queue, e.taskId);
        let list = pushes.get(id);
        if (!list) pushes.set(id, (list = []));
        list.push({ taskId: e.taskId, workflowId: e.workflowId, priority: e.priority, visibleAt: e.visibleAt });
      } else if (e.kind === 'dequeue') {
        ops.push(this.deps.queues(partitions.actorIdFor(e.queue, e.taskId)).remove({ taskId: e.taskId }));
        const t = taskById(state.tasks, e.taskId); // a failed 1,000-branch fork dequeues 1,000 tasks in one turn
        if (t) ops.push(this.deps.limits.release(t.taskDefName, t.taskId));
      }
    }
    for (const [id, list] of pushes) ops.push(list.length === 1 ? this.deps.queues(id).push(list[0]!) : this.deps.queues(id).pushMany(list));
    await Promise.all(ops);
    for (const e of effects) if (e.kind === 'enqueue') this.deps.wakeUps.notify(queueName(e.queue));
  }

  /**
   * The same effects, started now but not awaited by the turn: on Dapr a queue call made inside a
   * WorkflowActor turn is an actor call nested in another one, and placement's dissemination (lock,
   * update, unlock) waits for in-flight calls while pausing new ones, so nested calls stall it until
   * it times out and drops the sidecar's placement stream. Pushes are idempotent and a stale entry is
   * dropped at claim; a push that still fails is re-made by the recovery scan.
   */
  runAfterTurn(workflowId: string, effects: Effect[], state: ExecutionState): void {
    if (effects.length === 0) return;
    const attempt = async (n: number): Promise<void> => {
      try {
        await this.runImmediate(workflowId, effects, state);
      } catch (err) {
        if (n >= 3) {
          this.deps.log.warn({ err, workflowId }, 'queue effects failed; the recovery scan re-pushes');
          return;
        }
        await new Promise((r) => setTimeout(r, 500 * 2 ** n));
        await attempt(n + 1);
      }
    };
    void outsideTurn(() => attempt(0));
  }

  /** Cross-actor effects from the outbox; each is idempotent, so a re-run after a crash is harmless. */
  async runDeferred(workflowId: string, effects: Effect[]): Promise<void> {
    for (const e of effects) await this.runOne(workflowId, e);
  }

  /** Why the definition's input schema refuses a child's input, if it does. */
  private async inputProblem(def: WorkflowDef, input: Record<string, unknown>): Promise<string | undefined> {
    try {
      await this.deps.schemas?.checkWorkflowInput(def, input);
      return undefined;
    } catch (e) {
      if (e instanceof ApiError) return e.message;
      throw e;
    }
  }

  /** A start that cannot happen: its SUB_WORKFLOW or START_WORKFLOW task fails saying why; a failure workflow's is logged. */
  private async refuseStart(
    workflowId: string,
    e: Extract<Effect, { kind: 'startWorkflow' }>,
    reason: string,
    status: 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR' = 'FAILED',
  ): Promise<void> {
    const task = e.parent ?? e.starter;
    if (!task) {
      this.deps.log.warn({ workflowId, reason }, 'could not start workflow');
      return;
    }
    await workflowActor(this.deps.host, task.workflowId).update({
      workflowInstanceId: task.workflowId,
      taskId: task.taskId,
      status,
      reasonForIncompletion: reason,
      outputData: e.parent ? { subWorkflowId: e.workflowId } : {},
    });
  }

  private async runOne(workflowId: string, e: Effect): Promise<void> {
    const { host, store, metadata } = this.deps;
    switch (e.kind) {
      case 'startWorkflow': {
        const req = e.request;
        const def = req.workflowDef ?? (await metadata.getWorkflowDef(req.name, req.version ?? undefined));
        if (!def) return this.refuseStart(workflowId, e, `No such workflow found by name: ${req.name}, version: ${req.version ?? null}`);
        // An outbox written before lineages were kept: the start descends from the execution that owes it.
        const lineage = e.lineage ?? childLineage(lineageOf({ workflowId }));
        const invalid = await this.inputProblem(def, req.input ?? {});
        const refused = invalid ? undefined : await this.deps.admission?.refusal(def.name, e.workflowId, lineage);
        // A re-run of this effect after the child started (and its definition's schema changed since) leaves it be.
        if ((invalid || refused) && !(await store.load(e.workflowId))) {
          // Over the rate the task may be retried later (its definition's retries); over the tree's size or depth it never can.
          if (refused) return this.refuseStart(workflowId, e, refused.reason, refused.limit === 'rate' ? 'FAILED' : 'FAILED_WITH_TERMINAL_ERROR');
          return this.refuseStart(workflowId, e, invalid!);
        }
        await workflowActor(host, e.workflowId).start({ workflowId: e.workflowId, def, request: req, parent: e.parent, lineage, event: e.event });
        if (e.starter) {
          await workflowActor(host, e.starter.workflowId).update({
            workflowInstanceId: e.starter.workflowId,
            taskId: e.starter.taskId,
            status: 'COMPLETED',
            outputData: { workflowId: e.workflowId },
          });
        }
        return;
      }
      case 'notifyParent': {
        const child = await store.load(e.childWorkflowId);
        if (!child) return;
        const w = child.workflow;
        await workflowActor(host, e.parentWorkflowId).childChanged({
          taskId: e.parentTaskId,
          child: {
            workflowId: w.workflowId,
            status: w.status,
            output: w.output,
            reasonForIncompletion: w.reasonForIncompletion,
            workflowName: w.workflowName,
            workflowVersion: w.workflowVersion,
          },
        });
        return;
      }
      case 'terminateWorkflow':
        await workflowActor(host, e.workflowId)
          .terminate({ reason: e.reason })
          .catch(() => undefined);
        return;
      case 'retryWorkflow':
        await workflowActor(host, e.workflowId)
          .retry()
          .catch(() => undefined);
        return;
      case 'publish':
        await this.deps.bus.publish({ id: e.eventId, event: e.sink, payload: e.payload, ...(e.lineage ? { lineage: e.lineage } : {}) });
        return;
      case 'statusChange':
        // Listeners (and event handlers) see `baton:workflow:<name>` and `baton:task:<type>` events.
        await this.deps.bus.publish({
          id: e.eventId,
          event: e.task ? `baton:task:${e.task.taskType}` : `baton:workflow:${e.workflowName}`,
          payload: {
            workflowId: e.workflowId,
            workflowType: e.workflowName,
            status: e.status,
            ...(e.task ? { taskId: e.task.taskId, taskReferenceName: e.task.taskRef, taskType: e.task.taskType } : {}),
          },
          ...(e.lineage ? { lineage: e.lineage } : {}),
        });
        return;
      case 'index':
        // The committing actor handed the state to the indexer already (also on recovery): wait until it is written.
        await this.deps.indexer.settled();
        return;
      default:
        return;
    }
  }
}
