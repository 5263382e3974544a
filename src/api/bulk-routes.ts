import { setOwn } from '../lib/own-property';
import type { Handler, RouteDoc, RouteTable } from './route-table';
import type { WorkflowService } from '../services/workflow-service';
import { boolParam, strParam, type WithQuery } from './params';
import { toErrorBody } from './errors';
import { BulkIdsSchema, type BulkResponse } from '../model/bulk';
import { jsonBody, type JsonBody } from './request-body';
import { executionActions } from '../services/execution-actions';

// /api/workflow/bulk (Conductor's WorkflowBulkResource): one operation over up to 1000 executions; each id succeeds
// or fails on its own and the answer says which (200 even when some fail).

export interface BulkDeps {
  workflows: WorkflowService;
}

const WORKFLOW_IDS: JsonBody<string[]> = jsonBody(BulkIdsSchema, 'workflowIds');

/** Declares the routes under `r` (mounted at /api/workflow/bulk). */
export function bulkRoutes(r: RouteTable, d: BulkDeps): void {
  /** Query parameters are read once, before any id: a bad one is a 400 for the whole request. */
  const bulk =
    <A>(args: (req: WithQuery) => A, op: (id: string, a: A) => Promise<unknown>): Handler<string[]> =>
    async (req, res): Promise<void> => {
      const a = args(req);
      const ids = req.body;
      const out: BulkResponse = { bulkErrorResults: {}, bulkSuccessfulResults: [] };
      // One at a time: a thousand executions at once would flood the actor host.
      for (const id of ids) {
        try {
          await op(id, a);
          out.bulkSuccessfulResults.push(id);
        } catch (e) {
          setOwn(out.bulkErrorResults, id, toErrorBody(e).message);
        }
      }
      res.json(out);
    };
  const none = (): void => undefined;
  const doc = (summary: string, query?: RouteDoc['query']): RouteDoc<string[]> => ({
    permission: 'executions:manage',
    summary: `${summary} (up to 1000 ids)`,
    query,
    body: WORKFLOW_IDS,
    res: 'BulkResponse',
  });

  const act = executionActions(() => d.workflows);
  r.put(
    '/pause',
    doc('Pause executions'),
    bulk(none, (id) => act.pause(id, {})),
  );
  r.put(
    '/resume',
    doc('Resume executions'),
    bulk(none, (id) => act.resume(id, {})),
  );
  r.post(
    '/restart',
    doc('Restart executions', { useLatestDefinitions: 'boolean' }),
    bulk(
      (req) => boolParam(req, 'useLatestDefinitions', false),
      (id, latest) => act.restart(id, { useLatestDefinitions: latest }),
    ),
  );
  r.post(
    '/retry',
    doc('Retry executions'),
    bulk(none, (id) => act.retry(id, {})),
  );
  r.post(
    '/terminate',
    doc('Terminate executions', { reason: 'string' }),
    bulk(
      (req) => strParam(req, 'reason'),
      (id, reason) => act.terminate(id, { reason }),
    ),
  );
  r.delete(
    '/remove',
    doc('Remove executions', { archiveWorkflow: 'boolean' }),
    bulk(
      (req) => boolParam(req, 'archiveWorkflow', true),
      (id, archive) => act.remove(id, { archive }),
    ),
  );
  r.delete(
    '/terminate-remove',
    doc('Terminate, then remove, executions', { archiveWorkflow: 'boolean', reason: 'string' }),
    bulk(
      (req) => ({ reason: strParam(req, 'reason'), archive: boolParam(req, 'archiveWorkflow', true) }),
      (id, a) => d.workflows.terminateAndRemove(id, a.reason, a.archive),
    ),
  );
}
