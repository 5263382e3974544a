import { Router, type Request } from 'express';
import { isTerminalWorkflow } from '../model/statuses';
import { notFound } from '../services/errors';
import type { MetadataService } from '../services/metadata-service';
import type { WorkflowService } from '../services/workflow-service';
import { boolParam, parseBody, strParam } from './params';
import { toErrorBody } from './errors';
import { BulkIdsSchema, type BulkResponse } from '../model/bulk';

// /api/workflow/bulk (Conductor's WorkflowBulkResource): one operation over up to 1000 executions; each id succeeds
// or fails on its own and the answer says which (200 even when some fail).


export interface BulkDeps {
  workflows: WorkflowService;
  metadata: MetadataService;
}

/** Removes an execution; without archiving its search entry goes too (its actor takes it out of the index). */
export async function removeExecution(d: BulkDeps, workflowId: string, archive: boolean): Promise<void> {
  if (!(await d.workflows.exists(workflowId))) throw notFound(`No such workflow found by id: ${workflowId}`);
  await d.workflows.command(workflowId, 'remove', { archive });
}

/** Terminates a running or paused execution, then removes it (an ended one is just removed). */
export async function terminateAndRemove(d: BulkDeps, workflowId: string, reason: string | undefined, archive: boolean): Promise<void> {
  const w = await d.workflows.get(workflowId, false);
  if (!isTerminalWorkflow(w.status)) await d.workflows.command(workflowId, 'terminate', { reason });
  await removeExecution(d, workflowId, archive);
}

export async function restartExecution(d: BulkDeps, workflowId: string, useLatestDefinitions: boolean): Promise<void> {
  let def;
  if (useLatestDefinitions) {
    const current = await d.workflows.get(workflowId, false);
    def = await d.metadata.getWorkflowDef(current.workflowName);
  }
  await d.workflows.command(workflowId, 'restart', { def });
}

export function bulkRouter(d: BulkDeps): Router {
  const r = Router();

  /** Query parameters are read once, before any id: a bad one is a 400 for the whole request. */
  const bulk =
    <A>(args: (req: Request) => A, op: (id: string, a: A) => Promise<unknown>) =>
    async (req: Request, res: import('express').Response): Promise<void> => {
      const a = args(req);
      const ids = parseBody(BulkIdsSchema, req.body, 'workflowIds');
      const out: BulkResponse = { bulkErrorResults: {}, bulkSuccessfulResults: [] };
      // One at a time: a thousand executions at once would flood the actor host.
      for (const id of ids) {
        try {
          await op(id, a);
          out.bulkSuccessfulResults.push(id);
        } catch (e) {
          out.bulkErrorResults[id] = toErrorBody(e).message;
        }
      }
      res.json(out);
    };
  const none = (): void => undefined;

  r.put('/pause', bulk(none, (id) => d.workflows.command(id, 'pause')));
  r.put('/resume', bulk(none, (id) => d.workflows.command(id, 'resume')));
  r.post('/restart', bulk((req) => boolParam(req, 'useLatestDefinitions', false), (id, latest) => restartExecution(d, id, latest)));
  r.post('/retry', bulk(none, (id) => d.workflows.command(id, 'retry')));
  r.post('/terminate', bulk((req) => strParam(req, 'reason'), (id, reason) => d.workflows.command(id, 'terminate', { reason })));
  r.delete('/remove', bulk((req) => boolParam(req, 'archiveWorkflow', true), (id, archive) => removeExecution(d, id, archive)));
  r.delete(
    '/terminate-remove',
    bulk((req) => ({ reason: strParam(req, 'reason'), archive: boolParam(req, 'archiveWorkflow', true) }), (id, a) => terminateAndRemove(d, id, a.reason, a.archive)),
  );
  return r;
}
