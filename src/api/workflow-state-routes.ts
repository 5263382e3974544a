import { randomUUID } from 'node:crypto';
import { setOwn } from '../lib/own-property';
import { z } from 'zod';
import { WorkflowSchema, type Workflow } from '../model/execution';
import { isTerminalTask } from '../model/statuses';
import { CorrelationIdsSearchRequestSchema, WorkflowRunSchema, WorkflowStateUpdateSchema } from '../model/workflow-state';
import { waitForBlockingPoint, workflowRun } from '../services/blocking-point';
import type { ExecutionWaiter } from '../services/execution-waiter';
import type { WorkflowService } from '../services/workflow-service';
import type { ExecutionStore } from '../store/ports';
import { boolParam, listParam, strParam } from './params';
import { intQuery, type RouteTable } from './route-table';
import { jsonBody } from './request-body';
import { Errors } from '../model/named-errors';

// Changing a running execution's state from outside (Orkes' WorkflowResource): its variables; a task
// and the variables in one call, answered once the execution gets somewhere; and executions by a batch
// of correlation ids. Mounted at /api/workflow before the generic workflow routes.

const jsonObject = z.record(z.string(), z.unknown());
const MAX_WAIT_SECONDS = 600;
const WAIT_FOR_SECONDS = intQuery({ min: 0, max: MAX_WAIT_SECONDS, fallback: 10 });

export interface WorkflowStateRouteDeps {
  workflows: WorkflowService;
  store: ExecutionStore;
  waiter: ExecutionWaiter;
}

export function workflowStateRoutes(r: RouteTable, d: WorkflowStateRouteDeps): void {
  r.post(
    '/correlated/batch',
    {
      permission: 'executions:read',
      summary: 'Executions by correlation id, for each correlation id given, over the definitions named',
      query: { includeClosed: 'boolean', includeTasks: 'boolean' },
      body: jsonBody(CorrelationIdsSearchRequestSchema, 'correlationIdsSearchRequest'),
      res: { inline: z.record(z.string(), z.array(WorkflowSchema)) },
    },
    async (req, res) => {
      const body = req.body;
      const includeClosed = boolParam(req, 'includeClosed', false);
      const includeTasks = boolParam(req, 'includeTasks', false);
      const out: Record<string, Workflow[]> = {};
      for (const correlationId of new Set(body.correlationIds)) {
        const found: Workflow[] = [];
        for (const name of new Set(body.workflowNames)) {
          for (const id of await d.store.workflowIdsByCorrelationId(name, correlationId, includeClosed)) {
            const w = await d.workflows.get(id, includeTasks).catch(() => undefined);
            if (w) found.push(w);
          }
        }
        setOwn(
          out,
          correlationId,
          found.sort((a, b) => a.createTime - b.createTime),
        );
      }
      res.json(out);
    },
  );

  r.post(
    '/{workflowId}/variables',
    {
      permission: 'executions:manage',
      summary: 'Update the variables of a running execution (each key replaced); answers the execution',
      body: jsonBody(jsonObject, 'variables'),
      res: 'Workflow',
    },
    async (req, res) => {
      await d.workflows.updateVariables(req.params.workflowId, req.body, false);
      res.json(await d.workflows.get(req.params.workflowId, true));
    },
  );

  r.post(
    '/{workflowId}/state',
    {
      permission: 'executions:manage',
      summary: 'Update the variables, then a pending task by reference; wait until the execution ends, blocks or a named task ends; answers the execution',
      query: { requestId: 'string', waitUntilTaskRef: 'list', waitForSeconds: WAIT_FOR_SECONDS },
      body: jsonBody(WorkflowStateUpdateSchema, 'workflowStateUpdate'),
      res: { inline: WorkflowRunSchema },
    },
    async (req, res) => {
      const update = req.body;
      const workflowId = req.params.workflowId;
      const ref = update.taskReferenceName ?? undefined;
      if (update.taskResult && !ref) throw Errors.TASK_REFERENCE_REQUIRED();
      const requestId = strParam(req, 'requestId') || randomUUID();
      const untilRefs = listParam(req, 'waitUntilTaskRef');
      const waitForSeconds = WAIT_FOR_SECONDS.read(req, 'waitForSeconds');
      const ac = new AbortController();
      res.on('close', () => ac.abort());
      // Checked before anything changes, so a result for no pending task leaves the variables as they were.
      const current = await d.workflows.get(workflowId, true);
      if (ref && update.taskResult && !current.tasks.some((t) => t.referenceTaskName === ref && !isTerminalTask(t.status)))
        throw Errors.PENDING_TASK_NOT_FOUND(ref, workflowId);
      if (update.variables && Object.keys(update.variables).length > 0) await d.workflows.updateVariables(workflowId, update.variables, false);
      let updatedTaskId: string | undefined;
      if (ref && update.taskResult) {
        const t = update.taskResult;
        const id = await d.workflows.completeTask(workflowId, {
          ref,
          status: t.status,
          output: t.outputData ?? {},
          ...(t.workerId ? { workerId: t.workerId } : {}),
        });
        if (!id) throw Errors.PENDING_TASK_NOT_FOUND(ref, workflowId);
        if (t.status !== 'IN_PROGRESS') updatedTaskId = id;
      }
      const waited = await waitForBlockingPoint(d.store, d.waiter, workflowId, {
        untilRefs,
        exceptTaskId: updatedTaskId,
        deadline: Date.now() + waitForSeconds * 1000,
        signal: ac.signal,
      });
      if (!waited) throw Errors.WORKFLOW_NOT_FOUND(workflowId);
      res.json({ ...workflowRun(waited.snap.target), requestId });
    },
  );
}
