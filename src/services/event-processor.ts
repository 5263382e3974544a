import type { Logger } from 'pino';
import { ownValue } from '../lib/own-property';
import { resolvePath, resolveValue, type RootLookup } from '../engine/expressions';
import type { EventAction, EventExecution, EventHandler } from '../model/events';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import { isTerminalTask } from '../model/statuses';
import { ActorDeactivated } from '../runtime/ports';
import type { ScriptEngine } from '../scripting/script-engine';
import { isConductorTrue } from '../scripting/truthy';
import type { WorkflowService } from './workflow-service';
import { StaleWriteError, type ExecutionStore, type MetadataStore } from '../store/ports';
import type { PublishedEvent } from '../events/ports';
import { childLineage } from '../model/lineage';

// Event handlers (Conductor's DefaultEventProcessor): every event from the bus is matched against the active
// handlers of its name; a handler whose condition holds runs its actions in order, each recorded as
// an EventExecution. A failing action is logged and recorded as FAILED; it never stops the others.

export interface EventProcessorDeps {
  metadata: MetadataStore;
  executions: ExecutionStore;
  workflows: WorkflowService;
  scripts: ScriptEngine;
  /** Name-based id, so a redelivered event starts its workflow once. */
  derivedId(seed: string): string;
  log: Logger;
  now?: () => number;
  /** Pauses between attempts of an action that failed on a transient error (actor moved, stale write). */
  retryDelaysMs?: number[];
}

type Outcome = { status: 'COMPLETED' | 'FAILED'; output: Record<string, unknown> };

/** Root lookup over a message payload: `${a.b}` reads `payload.a.b`, `${$.a}` works too. */
export function payloadLookup(payload: Record<string, unknown>): RootLookup {
  return (name) => (name === '$' ? payload : ownValue(payload, name));
}

/** `expandInlineJSON`: strings holding a JSON object or array are parsed, at any depth. */
export function expandInlineJson(value: unknown): unknown {
  if (typeof value === 'string') {
    const s = value.trim();
    if ((s.startsWith('{') && s.endsWith('}')) || (s.startsWith('[') && s.endsWith(']'))) {
      try {
        return expandInlineJson(JSON.parse(s));
      } catch {
        return value;
      }
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(expandInlineJson);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandInlineJson(v)]));
  return value;
}

/**
 * Whether a handler's condition holds for a payload. No condition holds. `value-param` reads the
 * condition as a path into the payload; any other evaluator (javascript, graaljs, none) runs it as
 * JavaScript with the payload as `$`. The result counts by Conductor's rule (true, or a number > 0).
 */
export async function conditionHolds(
  h: Pick<EventHandler, 'condition' | 'evaluatorType'>,
  payload: Record<string, unknown>,
  scripts: Pick<ScriptEngine, 'evalExpression'>,
): Promise<boolean> {
  const condition = h.condition?.trim();
  if (!condition) return true;
  if ((h.evaluatorType ?? '').toLowerCase() === 'value-param') return isConductorTrue(resolvePath(condition, payloadLookup(payload)));
  return isConductorTrue(await scripts.evalExpression(condition, payload));
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const isTransient = (e: unknown): boolean => e instanceof ActorDeactivated || e instanceof StaleWriteError;
const asObject = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

class ActionError extends Error {}

export class EventProcessor {
  private readonly now: () => number;
  private readonly retryDelaysMs: number[];

  constructor(private readonly deps: EventProcessorDeps) {
    this.now = deps.now ?? Date.now;
    this.retryDelaysMs = deps.retryDelaysMs ?? [50, 250, 1000];
  }

  /** The bus consumer. Rejects only when the handlers cannot be read, so a bus that redelivers will. */
  handle = async (e: PublishedEvent): Promise<void> => {
    let handlers: EventHandler[];
    try {
      handlers = (await this.deps.metadata.listEventHandlers()).filter((h) => h.active && h.event === e.event);
    } catch (err) {
      this.deps.log.error({ err, event: e.event, messageId: e.id }, 'event handlers could not be read; event not processed');
      throw err;
    }
    for (const h of handlers) await this.runHandler(h, e);
  };

  private async runHandler(h: EventHandler, e: PublishedEvent): Promise<void> {
    const payload = e.payload ?? {};
    let holds: boolean;
    try {
      holds = await conditionHolds(h, payload, this.deps.scripts);
    } catch (err) {
      this.deps.log.warn({ err, handler: h.name, event: e.event, messageId: e.id }, 'event handler condition failed');
      await this.record(h, e, 0, 'FAILED', undefined, { error: `condition failed: ${messageOf(err)}`, condition: h.condition, msg: payload });
      return;
    }
    if (!holds) {
      await this.record(h, e, 0, 'SKIPPED', undefined, { msg: payload, condition: h.condition });
      return;
    }
    for (const [i, action] of h.actions.entries()) {
      const outcome = await this.runWithRetries(h, e, action, i);
      await this.record(h, e, i, outcome.status, action.action, outcome.output);
    }
  }

  private async runWithRetries(h: EventHandler, e: PublishedEvent, action: EventAction, index: number): Promise<Outcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.runAction(h, e, action, index);
      } catch (err) {
        const delay = this.retryDelaysMs[attempt];
        if (isTransient(err) && delay !== undefined) {
          await new Promise((r) => setTimeout(r, delay));
          continue;
        }
        if (!(err instanceof ActionError))
          this.deps.log.warn({ err, handler: h.name, action: action.action, event: e.event, messageId: e.id }, 'event action failed');
        return { status: 'FAILED', output: { error: messageOf(err) } };
      }
    }
  }

  private async runAction(h: EventHandler, e: PublishedEvent, action: EventAction, index: number): Promise<Outcome> {
    const source = action.expandInlineJSON ? (expandInlineJson(e.payload ?? {}) as Record<string, unknown>) : (e.payload ?? {});
    const params = asObject(resolveValue(action[action.action] ?? {}, payloadLookup(source)));
    const eventKeys = { 'conductor.event.messageId': e.id, 'conductor.event.name': e.event };
    const { workflows } = this.deps;
    switch (action.action) {
      case 'start_workflow': {
        const name = asString(params.name);
        if (!name) throw new ActionError('start_workflow needs a workflow name');
        // A `${...}` version arrives as text when it was interpolated.
        const version = typeof params.version === 'number' ? params.version : /^\d+$/.test(String(params.version ?? '')) ? Number(params.version) : undefined;
        const taskToDomain = asObject(params.taskToDomain ?? source.taskToDomain) as Record<string, string>;
        const workflowId = this.deps.derivedId(`event:${h.name}:${e.id}:${index}`);
        await workflows.start(
          {
            name,
            version,
            correlationId: asString(params.correlationId),
            input: { ...asObject(params.input), ...eventKeys },
            ...(Object.keys(taskToDomain).length > 0 ? { taskToDomain } : {}),
          },
          // A start on an execution's own event descends from it; one on an event from outside is a root.
          { workflowId, event: e.event, ...(e.lineage ? { lineage: childLineage(e.lineage) } : {}) },
        );
        return { status: 'COMPLETED', output: { workflowId } };
      }
      case 'complete_task':
      case 'fail_task': {
        const task = await this.targetTask(params);
        const status: TaskResult['status'] = action.action === 'complete_task' ? 'COMPLETED' : 'FAILED';
        const reason = asString(params.reasonForIncompletion);
        const result: TaskResult = {
          workflowInstanceId: task.workflowInstanceId,
          taskId: task.taskId,
          status,
          outputData: {
            ...task.outputData,
            ...asObject(params.output),
            workflowId: task.workflowInstanceId,
            taskId: task.taskId,
            taskRefName: task.referenceTaskName,
            ...(reason ? { reasonForIncompletion: reason } : {}),
            ...eventKeys,
          },
          ...(reason ? { reasonForIncompletion: reason } : {}),
        };
        const applied = await workflows.updateTask(result);
        if (applied !== 'applied')
          throw new ActionError(`Task ${task.taskId} (${task.referenceTaskName}) of workflow ${task.workflowInstanceId} is no longer pending`);
        return { status: 'COMPLETED', output: { workflowId: task.workflowInstanceId, taskId: task.taskId, taskRefName: task.referenceTaskName, status } };
      }
      case 'terminate_workflow': {
        const workflowId = asString(params.workflowId);
        if (!workflowId) throw new ActionError('terminate_workflow needs a workflowId');
        const reason = asString(params.terminationReason) ?? `Terminated by event handler ${h.name} on ${e.event}`;
        await workflows.terminate(workflowId, reason);
        return { status: 'COMPLETED', output: { workflowId, terminationReason: reason } };
      }
      case 'update_workflow_variables': {
        const workflowId = asString(params.workflowId);
        if (!workflowId) throw new ActionError('update_workflow_variables needs a workflowId');
        const variables = await workflows.updateVariables(workflowId, asObject(params.variables), params.appendArray === true);
        return { status: 'COMPLETED', output: { workflowId, variables } };
      }
      default:
        throw new ActionError(`Unknown event action ${String(action.action)}`);
    }
  }

  /** The task of complete_task/fail_task: by taskId, else by workflowId and reference (the latest loop iteration). */
  private async targetTask(params: Record<string, unknown>): Promise<Task> {
    const { executions } = this.deps;
    const taskId = asString(params.taskId);
    if (taskId) {
      const t = await executions.getTask(taskId);
      if (!t) throw new ActionError(`No such task found by id: ${taskId}`);
      return t;
    }
    const workflowId = asString(params.workflowId);
    const ref = asString(params.taskRefName);
    if (!workflowId || !ref) throw new ActionError('A task is named by taskId, or by workflowId and taskRefName');
    const s = await executions.load(workflowId);
    if (!s) throw new ActionError(`No such workflow found by id: ${workflowId}`);
    const byRef = s.tasks.filter((t) => !t.retried && (t.referenceTaskName === ref || t.workflowTask.taskReferenceName === ref));
    const latest = (list: Task[]): Task | undefined =>
      list.reduce<Task | undefined>(
        (best, t) => (!best || t.iteration > best.iteration || (t.iteration === best.iteration && t.seq > best.seq) ? t : best),
        undefined,
      );
    const t = latest(byRef.filter((x) => !isTerminalTask(x.status))) ?? latest(byRef);
    if (!t) throw new ActionError(`No task ${ref} in workflow ${workflowId}`);
    return t;
  }

  private async record(
    h: EventHandler,
    e: PublishedEvent,
    index: number,
    status: EventExecution['status'],
    action: string | undefined,
    output: Record<string, unknown>,
  ): Promise<void> {
    // Conductor's id is `<messageId>_<action index>`; the handler name keeps two handlers of one event apart.
    const exec: EventExecution = {
      id: `${e.id}_${h.name}_${index}`,
      messageId: e.id,
      name: h.name,
      event: e.event,
      created: this.now(),
      status,
      ...(action ? { action } : {}),
      output,
      // One copy per handler and message: the message's fullPayload is read from it.
      ...(index === 0 ? { payload: e.payload ?? {} } : {}),
    };
    if (status === 'FAILED') this.deps.log.warn({ handler: h.name, event: e.event, messageId: e.id, action, error: output.error }, 'event execution failed');
    try {
      await this.deps.metadata.addEventExecution(exec);
    } catch (err) {
      this.deps.log.error({ err, execution: exec }, 'event execution could not be recorded');
    }
  }
}
