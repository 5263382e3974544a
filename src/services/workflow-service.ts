import { childWorkflowOf, taskTypeNamed } from '../engine/tasks/registry';
import { newId } from '../ids';
import type { WorkflowDef } from '../model/definitions';
import { walkTasks } from '../model/definitions';
import { outwardTask, type Task, type Workflow } from '../model/execution';
import type { RerunWorkflowRequest, StartWorkflowRequest, TaskResult, UpgradeWorkflowRequest } from '../model/requests';
import { workflowActor, type ExternalUpdateArg, type UpdateOutcome, type WorkflowActorClient } from '../actors/protocol/workflow-protocol';
import { isTerminalWorkflow } from '../model/statuses';
import { OutcomeUnknown, type ActorHost } from '../runtime/ports';
import type { ExecutionStore, IdempotencyKeyStore } from '../store/ports';
import { checkDefinitionSize } from './definition-limits';
import { idempotentStartOutcome, IN_FLIGHT_WAIT_MS, keyHolderState } from './idempotency-decision';
import type { SchemaEnforcer } from './schema-enforcer';
import type { StartAdmission } from './start-admission';
import type { Lineage } from '../model/lineage';
import type { MetadataService } from './metadata-service';
import { Errors } from '../model/named-errors';
import type { ArchivedExecutions } from '../retention/archived-executions';
import { workflowView } from '../model/payload-view';
import type { ExternalPayloads } from '../objects/external-payloads';
import { settleUnknownOutcome, SETTLE_POLICY, storedUpdateOutcome, type SettlePolicy } from './unknown-outcome';

/** The workflow side of the front end: resolves definitions, starts executions, reads them, and every operation on one (through its actor). */
export class WorkflowService {
  constructor(
    private readonly host: ActorHost,
    private readonly store: ExecutionStore,
    private readonly metadata: MetadataService,
    /** Claims of idempotency keys; without it a key is recorded on the execution but not enforced (unit tests). */
    private readonly keys?: IdempotencyKeyStore,
    /** Checks a start's input against the definition's input schema. */
    private readonly schemas?: SchemaEnforcer,
    /** Bounds the executions descending from one root (event-handler starts); absent: unbounded (unit tests). */
    private readonly admission?: StartAdmission,
    private readonly inFlightWaitMs = IN_FLIGHT_WAIT_MS,
    /** Reads an input a start names by externalInputPayloadStoragePath; absent: the path is only recorded. */
    private readonly payloads?: ExternalPayloads,
    /** Executions purged into the archive: read from there, changes to them refused (409). */
    private readonly archive?: ArchivedExecutions,
    /** How a start or an update whose answer was lost is settled. */
    private readonly settlePolicy: SettlePolicy = SETTLE_POLICY,
  ) {}

  async resolveDef(req: StartWorkflowRequest): Promise<WorkflowDef> {
    if (req.workflowDef) {
      // An inline definition is snapshotted with the execution like a registered one: the same size limit applies.
      checkDefinitionSize('WorkflowDef', req.workflowDef.name, req.workflowDef, this.metadata.limits);
      return req.workflowDef as WorkflowDef;
    }
    const def = await this.metadata.getWorkflowDef(req.name, req.version ?? undefined);
    if (!def) throw Errors.WORKFLOW_DEF_NOT_FOUND(req.name, req.version);
    return def;
  }

  /** Pins the version of every SUB_WORKFLOW without one, as Conductor does at start; a name given as an expression is resolved (and its latest version taken) when the task is scheduled. */
  private async pinSubWorkflows(def: WorkflowDef): Promise<WorkflowDef> {
    const pinnable = (p: WorkflowDef['tasks'][number]['subWorkflowParam']): p is NonNullable<typeof p> & { name: string } =>
      !!p && !p.workflowDefinition && p.version == null && !!p.name && !p.name.includes('${');
    const unpinned = [...walkTasks(def.tasks)].filter((t) => taskTypeNamed(t.type).followsChildWorkflow && pinnable(t.subWorkflowParam));
    if (unpinned.length === 0) return def;
    const copy = structuredClone(def);
    for (const t of walkTasks(copy.tasks)) {
      const p = t.subWorkflowParam;
      if (!taskTypeNamed(t.type).followsChildWorkflow || !pinnable(p)) continue;
      const child = await this.metadata.getWorkflowDef(p.name);
      if (!child) throw Errors.WORKFLOW_DEF_NOT_FOUND(p.name, null);
      p.version = child.version;
    }
    return copy;
  }

  /** `lineage`: the start descends from another execution (an event handler acting on its event); absent: a root. */
  async start(named: StartWorkflowRequest, opts: { workflowId?: string; event?: string; lineage?: Lineage } = {}): Promise<string> {
    if (named.input === null && !named.externalInputPayloadStoragePath) throw Errors.NULL_START_INPUT();
    const req = await this.withInput(named);
    const def = await this.pinSubWorkflows(await this.resolveDef(req));
    await this.schemas?.checkWorkflowInput(def, req.input ?? {});
    const workflowId = opts.workflowId ?? newId();
    const { lineage } = opts;
    if (lineage && this.admission) {
      const refused = await this.admission.refusal(def.name, workflowId, lineage);
      // A redelivered event whose start happened already is not refused again (its counter may have lapsed).
      if (refused && !(await this.exists(workflowId))) throw Errors.START_ADMISSION_REFUSED(refused.reason);
    }
    const arg = { workflowId, def, request: req, event: opts.event, lineage };
    // The id is chosen here and the actor's first commit is an insert-if-absent: a re-send makes no second execution.
    const launch = () =>
      settleUnknownOutcome(
        {
          call: () => this.actor(workflowId).start({ ...arg, fresh: opts.workflowId === undefined }),
          resend: () => this.actor(workflowId).start({ ...arg, fresh: false }),
          lookup: async () => ((await this.exists(workflowId)) ? workflowId : undefined),
        },
        this.settlePolicy,
      );
    if (req.idempotencyKey && this.keys) return this.startWithKey(this.keys, def.name, req, req.idempotencyKey, workflowId, launch);
    await launch();
    return workflowId;
  }

  /** A start naming externalInputPayloadStoragePath takes its input from there (a 400 when there is none). */
  private async withInput(req: StartWorkflowRequest): Promise<StartWorkflowRequest> {
    const path = req.externalInputPayloadStoragePath?.trim();
    if (!path || !this.payloads) return req;
    const input = await this.payloads.read(path, 'externalInputPayloadStoragePath', this.payloads.settings.workflowMaxBytes);
    return { ...req, input, externalInputPayloadStoragePath: path };
  }

  /**
   * A start with an idempotency key (scoped to the workflow name): the key is claimed in the store
   * first, atomically, so of starts racing with one key (here or on other replicas) one makes the
   * execution and the others see it as the holder and follow the strategy.
   */
  private async startWithKey(
    keys: IdempotencyKeyStore,
    name: string,
    req: StartWorkflowRequest,
    key: string,
    workflowId: string,
    launch: () => Promise<unknown>,
  ): Promise<string> {
    const strategy = req.idempotencyStrategy ?? 'FAIL';
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      const claim = await keys.claim(name, key, workflowId, now);
      if (claim.workflowId !== workflowId) {
        const holder = (await this.store.load(claim.workflowId))?.workflow;
        const state = keyHolderState(holder?.status, holder ? isTerminalWorkflow(holder.status) : false, claim.claimedAt, now);
        const outcome = idempotentStartOutcome(strategy, state);
        if (outcome === 'return-existing') return claim.workflowId;
        if (outcome === 'retry-later') {
          // Racing starts see the winner commit in moments; one whose turn died never does.
          if (await this.appears(claim.workflowId)) return claim.workflowId;
          throw Errors.IDEMPOTENT_START_IN_FLIGHT(key);
        }
        if (outcome === 'conflict' || attempt >= 5) throw Errors.IDEMPOTENT_START_EXISTS(key);
        // take-over: only while the holder we judged still holds it; else another start moved first, look again.
        if (!(await keys.reassign(name, key, claim.workflowId, workflowId, now))) continue;
      }
      try {
        await launch();
      } catch (e) {
        // Give the key back only when no execution came of it (a call that failed after its commit keeps it);
        // a call whose turn may still run keeps it too: it goes stale like a crashed starter's if none appears.
        if (!(e instanceof OutcomeUnknown) && !(await this.exists(workflowId).catch(() => true)))
          await keys.release(name, key, workflowId).catch(() => undefined);
        throw e;
      }
      return workflowId;
    }
  }

  async get(workflowId: string, includeTasks: boolean): Promise<Workflow> {
    const s = await this.store.load(workflowId);
    if (!s) {
      const archived = await this.archive?.find(workflowId, includeTasks);
      if (archived) return workflowView({ ...archived, tasks: archived.tasks.map(withComputed) });
      throw Errors.WORKFLOW_NOT_FOUND(workflowId);
    }
    // A payload kept outside the row answers as Conductor's does: empty, beside its path.
    return workflowView({ ...s.workflow, tasks: includeTasks ? s.tasks.map(withComputed) : [] });
  }

  private actor(workflowId: string): WorkflowActorClient {
    const client = workflowActor(this.host, workflowId);
    return this.archive ? this.archive.refusing(client, workflowId) : client;
  }

  pause(workflowId: string): Promise<void> {
    return this.actor(workflowId).pause();
  }

  resume(workflowId: string): Promise<void> {
    return this.actor(workflowId).resume();
  }

  terminate(workflowId: string, reason?: string): Promise<void> {
    return this.actor(workflowId).terminate({ reason });
  }

  /** Rerun from a task or from the start; answers the execution's id. */
  rerun(workflowId: string, request: RerunWorkflowRequest): Promise<string> {
    return this.actor(workflowId).rerun(request);
  }

  /** Restart an ended execution, with its own definition or the latest version of it. */
  async restart(workflowId: string, useLatestDefinitions: boolean): Promise<void> {
    let def: WorkflowDef | undefined;
    if (useLatestDefinitions) {
      const current = await this.get(workflowId, false);
      def = await this.metadata.getWorkflowDef(current.workflowName);
    }
    await this.actor(workflowId).restart({ def });
  }

  /**
   * Moves a running execution to another version of its definition (Orkes' upgrade): the version must exist,
   * be of the execution's workflow, and take the new input (its input schema); the actor maps the tasks or refuses.
   */
  async upgrade(workflowId: string, request: UpgradeWorkflowRequest): Promise<void> {
    const current = await this.get(workflowId, false);
    if (request.name !== current.workflowName) throw Errors.UPGRADE_OTHER_WORKFLOW(workflowId, current.workflowName, request.name);
    const found = await this.metadata.getWorkflowDef(request.name, request.version);
    if (!found) throw Errors.WORKFLOW_DEF_NOT_FOUND(request.name, request.version);
    const def = await this.pinSubWorkflows(found);
    if (request.workflowInput) await this.schemas?.checkWorkflowInput(def, request.workflowInput);
    await this.actor(workflowId).upgrade({ def, workflowInput: request.workflowInput, taskOutput: request.taskOutput });
  }

  /** Makes SCHEDULED worker tasks waiting for callbackAfterSeconds pollable now; answers how many. */
  resetCallbacks(workflowId: string): Promise<number> {
    return this.actor(workflowId).resetCallbacks();
  }

  skipTask(workflowId: string, ref: string, input?: Record<string, unknown> | null, output?: Record<string, unknown> | null): Promise<void> {
    return this.actor(workflowId).skip({ ref, input, output });
  }

  /** Re-evaluates an execution: re-pushes its SCHEDULED tasks, re-arms its reminder, re-runs its outbox. */
  reevaluate(workflowId: string): Promise<void> {
    return this.actor(workflowId).recover();
  }

  /** Applies a worker's (or an event handler's) task result. */
  updateTask(result: TaskResult): Promise<UpdateOutcome> {
    const actor = this.actor(result.workflowInstanceId);
    // A repeated result of a task it already ended is ignored: re-sending settles a lost answer.
    return settleUnknownOutcome(
      {
        call: () => actor.update(result),
        resend: () => actor.update(result),
        lookup: async () => storedUpdateOutcome(result, await this.store.getTask(result.taskId)),
      },
      this.settlePolicy,
    );
  }

  /** Completes a pending task addressed by id or reference, merging `output` into its output; answers its id, null when none is pending. */
  completeTask(workflowId: string, update: ExternalUpdateArg): Promise<string | null> {
    return this.actor(workflowId).updateExternal(update);
  }

  /** Answers the variables after the update. */
  updateVariables(workflowId: string, variables: Record<string, unknown>, appendArray: boolean): Promise<Record<string, unknown>> {
    return this.actor(workflowId).updateVariables({ variables, appendArray });
  }

  /** Removes an execution; without archiving its search entry goes too (its actor takes it out of the index). */
  async remove(workflowId: string, archive: boolean): Promise<void> {
    const s = await this.store.load(workflowId);
    if (!s) throw this.archive ? await this.archive.refusal(workflowId, Errors.WORKFLOW_NOT_FOUND(workflowId)) : Errors.WORKFLOW_NOT_FOUND(workflowId);
    await this.actor(workflowId).remove({ archive });
    // A removed execution frees its idempotency key: a later start with it makes a new execution.
    const key = s.workflow.idempotencyKey;
    if (key && this.keys) await this.keys.release(s.workflow.workflowName, key, workflowId);
  }

  /** Terminates a running or paused execution, then removes it (an ended one is just removed). */
  async terminateAndRemove(workflowId: string, reason: string | undefined, archive: boolean): Promise<void> {
    const w = await this.get(workflowId, false);
    if (!isTerminalWorkflow(w.status)) await this.terminate(workflowId, reason);
    await this.remove(workflowId, archive);
  }

  /**
   * Retry (Conductor's WorkflowExecutor.retry). With resumeSubworkflowTasks, when the failed task is a SUB_WORKFLOW the
   * retry happens inside the deepest failed child, whose revival brings the parent back to RUNNING.
   */
  async retry(workflowId: string, resumeSubworkflowTasks: boolean): Promise<void> {
    if (resumeSubworkflowTasks) {
      const s = await this.store.load(workflowId);
      const failed = s?.tasks.filter((t) => !t.retried && ['FAILED', 'TIMED_OUT', 'CANCELED'].includes(t.status));
      const child = failed?.length === 1 ? childWorkflowOf(failed[0]!) : undefined;
      if (s && isTerminalWorkflow(s.workflow.status) && child && (await this.exists(child))) {
        return this.retry(child, true);
      }
    }
    await this.actor(workflowId).retry();
  }

  async exists(workflowId: string): Promise<boolean> {
    return (await this.store.load(workflowId)) !== undefined;
  }

  /** Whether the execution exists within the in-flight wait, looked up every 50 ms. */
  private async appears(workflowId: string): Promise<boolean> {
    for (const until = Date.now() + this.inFlightWaitMs; ; await new Promise((r) => setTimeout(r, 50))) {
      if (await this.exists(workflowId)) return true;
      if (Date.now() >= until) return false;
    }
  }
}

/** A task as the API answers it: the computed getters Conductor serialises (Task.queueWaitTime, loopOverTask, taskDefinition), without Baton's internal fields. */
export function withComputed(t: Task): Task {
  const task = outwardTask(t);
  const queueWaitTime = t.startTime > 0 ? t.startTime - t.scheduledTime : 0;
  return { ...task, queueWaitTime, loopOverTask: t.iteration > 0, ...(t.workflowTask.taskDefinition ? { taskDefinition: t.workflowTask.taskDefinition } : {}) };
}
