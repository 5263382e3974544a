import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ExecuteWorkflowRequestSchema, StartWorkflowRequestSchema } from '../model/requests';
import { TaskResultStatus } from '../model/statuses';
import { signalResponse, snapshotTree, waitForBlockingPoint } from '../services/blocking-point';
import { ReturnStrategySchema, type ReturnStrategy } from '../model/signals';
import type { ExecutionWaiter } from '../services/execution-waiter';
import type { WorkflowTestRunner } from '../services/workflow-test-run';
import { WorkflowTestRequestSchema } from '../model/workflow-test';
import type { WorkflowService } from '../services/workflow-service';
import type { ExecutionStore } from '../store/ports';
import { boolParam, listParam, parseBody, strParam } from './params';
import { intQuery, oneOf, type RouteTable } from './route-table';
import { jsonBody } from './request-body';
import { Errors } from '../model/named-errors';

// Requests that wait for an execution to get somewhere: execute, the mocked test run (`/api/workflow/test`),
// signals; plus terminate-remove. Mounted before the generic `/api/workflow/{name}` and
// `/api/tasks/{workflowId}/{ref}/{status}` routes, which would otherwise take these paths.

const jsonObject = z.record(z.string(), z.unknown());
const MAX_WAIT_SECONDS = 600;
const WAIT_FOR_SECONDS = intQuery({ min: 0, max: MAX_WAIT_SECONDS, fallback: 10 });
const TIMEOUT_MILLIS = intQuery({ min: 0, max: MAX_WAIT_SECONDS * 1000, fallback: 5000 });

export interface ExecutionRouteDeps {
  workflows: WorkflowService;
  store: ExecutionStore;
  waiter: ExecutionWaiter;
  testRunner: WorkflowTestRunner;
}

function returnStrategyOf(req: Request): ReturnStrategy {
  const v = strParam(req, 'returnStrategy');
  if (!v) return 'TARGET_WORKFLOW';
  const r = ReturnStrategySchema.safeParse(v);
  if (!r.success) throw Errors.RETURN_STRATEGY_INVALID(v, ReturnStrategySchema.options.join(', '));
  return r.data;
}

/**
 * Orkes' Consistency of an execute: SYNCHRONOUS, DURABLE (its default) or REGION_DURABLE. Baton commits
 * every start before it answers, so each is served at least as strongly as asked; only the name is checked.
 */
const CONSISTENCIES = ['SYNCHRONOUS', 'DURABLE', 'REGION_DURABLE'] as const;
function consistencyOf(req: Request): (typeof CONSISTENCIES)[number] {
  const v = strParam(req, 'consistency');
  if (!v) return 'DURABLE';
  const found = CONSISTENCIES.find((c) => c === v);
  if (!found) throw Errors.CONSISTENCY_INVALID(v, CONSISTENCIES.join(', '));
  return found;
}

/** Execute's body: a StartWorkflowRequest whose name and version the path gives (a missing body starts with no input). */
const EXECUTE = jsonBody(ExecuteWorkflowRequestSchema, 'startWorkflowRequest', 'missing');

/** Aborts when the client goes away, so an abandoned wait ends early. */
function abortOnClose(res: Response): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => ac.abort());
  return ac.signal;
}

/** Declares the routes under `r` (mounted at /api/workflow, before the generic `/{name}` routes). */
export function executionRoutes(r: RouteTable, d: ExecutionRouteDeps): void {
  r.post(
    '/execute/{name}/{version}',
    {
      permission: 'executions:start',
      summary: 'Start an execution and wait until it ends, blocks (WAIT/HUMAN/YIELD), or a named task ends; version 0 is the latest',
      pathParams: { version: { schema: { type: 'integer', minimum: 0 } } },
      query: {
        requestId: 'string',
        waitUntilTaskRef: 'list',
        waitForSeconds: WAIT_FOR_SECONDS,
        consistency: { schema: oneOf(CONSISTENCIES) },
        returnStrategy: { schema: oneOf(ReturnStrategySchema.options) },
      },
      body: EXECUTE,
      res: 'SignalResponse',
    },
    async (req, res) => {
      const version = Number(req.params.version);
      if (!Number.isInteger(version) || version < 0) throw Errors.VERSION_INVALID(req.params.version);
      // The path names the workflow; version 0 means the latest.
      const name = parseBody(StartWorkflowRequestSchema.shape.name, req.params.name, 'startWorkflowRequest.name');
      const request = { ...req.body, name, version: version === 0 ? undefined : version };
      const requestId = strParam(req, 'requestId') || randomUUID();
      const untilRefs = listParam(req, 'waitUntilTaskRef');
      const waitForSeconds = WAIT_FOR_SECONDS.read(req, 'waitForSeconds');
      const strategy = returnStrategyOf(req);
      consistencyOf(req);
      const signal = abortOnClose(res);
      const workflowId = await d.workflows.start(request);
      const waited = await waitForBlockingPoint(d.store, d.waiter, workflowId, { untilRefs, deadline: Date.now() + waitForSeconds * 1000, signal });
      if (!waited) throw Errors.WORKFLOW_NOT_FOUND(workflowId);
      res.json(signalResponse(strategy, waited.snap, requestId, waited.timedOut));
    },
  );

  r.post(
    '/test',
    {
      permission: 'executions:start',
      summary: 'A run driven by mocked task results, in a task domain no worker polls',
      body: jsonBody(WorkflowTestRequestSchema, 'workflowTestRequest'),
      res: 'Workflow',
    },
    async (req, res) => {
      res.json(await d.testRunner.run(req.body));
    },
  );

  r.delete(
    '/{workflowId}/terminate-remove',
    { permission: 'executions:manage', summary: 'Terminate, then remove, an execution', query: { reason: 'string', archiveWorkflow: 'boolean' }, res: 'empty' },
    async (req, res) => {
      await d.workflows.terminateAndRemove(req.params.workflowId, strParam(req, 'reason'), boolParam(req, 'archiveWorkflow', true));
      res.status(200).end();
    },
  );
}

/** Completes (or updates) the first blocking task of an execution tree; returns it, or undefined when none waits. */
async function applySignal(d: ExecutionRouteDeps, workflowId: string, statusText: string, output: Record<string, unknown>) {
  const status = TaskResultStatus.safeParse(statusText);
  if (!status.success) throw Errors.TASK_STATUS_INVALID(statusText, TaskResultStatus.options.join(', '));
  const snap = await snapshotTree(d.store, workflowId);
  if (!snap) throw Errors.WORKFLOW_NOT_FOUND(workflowId);
  const blocking = snap.blocking;
  if (!blocking) return undefined;
  const id = await d.workflows.completeTask(blocking.workflow.workflowId, { taskId: blocking.task.taskId, status: status.data, output });
  if (!id) throw Errors.TASK_NO_LONGER_WAITING(blocking.task.referenceTaskName, blocking.workflow.workflowId);
  return { taskId: id, ended: status.data !== 'IN_PROGRESS' };
}

/** /api/tasks/{workflowId}/{status}/signal[/sync]. */
export function signalRoutes(r: RouteTable, d: ExecutionRouteDeps): void {
  const signal = {
    pathParams: { status: { schema: oneOf(TaskResultStatus.options) } },
    body: jsonBody(jsonObject, 'output', 'missing-or-empty-text'),
  };

  r.post(
    '/{workflowId}/{status}/signal',
    {
      permission: 'tasks:update',
      summary: 'Signal the first waiting (WAIT/HUMAN/YIELD) task, in the execution or its running sub-workflows; 200 when none waits',
      ...signal,
      res: 'empty',
    },
    async (req, res) => {
      // Fire-and-forget, as Orkes acknowledges it: a signal with nothing waiting is a no-op, not an error.
      await applySignal(d, req.params.workflowId, req.params.status, req.body);
      res.status(200).end();
    },
  );

  r.post(
    '/{workflowId}/{status}/signal/sync',
    {
      permission: 'tasks:update',
      summary: 'Signal, then wait for the next blocking point',
      query: { returnStrategy: { schema: oneOf(ReturnStrategySchema.options) }, timeoutMillis: TIMEOUT_MILLIS },
      ...signal,
      res: 'SignalResponse',
    },
    async (req, res) => {
      const strategy = returnStrategyOf(req);
      const timeoutMs = TIMEOUT_MILLIS.read(req, 'timeoutMillis');
      const signal = abortOnClose(res);
      const applied = await applySignal(d, req.params.workflowId, req.params.status, req.body);
      if (!applied) throw Errors.NO_TASK_WAITING_FOR_SIGNAL(req.params.workflowId);
      // Wait for the next blocking point; an IN_PROGRESS signal leaves its task blocking, which is an answer already.
      const waited = await waitForBlockingPoint(d.store, d.waiter, req.params.workflowId, {
        exceptTaskId: applied.ended ? applied.taskId : undefined,
        deadline: Date.now() + timeoutMs,
        signal,
      });
      if (!waited) throw Errors.WORKFLOW_NOT_FOUND(req.params.workflowId);
      res.json(signalResponse(strategy, waited.snap, undefined, waited.timedOut));
    },
  );
}
