import type { SearchIndex } from '../search/ports';
import type { Task } from '../model/execution';
import { isTerminalTask } from '../model/statuses';
import { withComputed, type WorkflowService } from '../services/workflow-service';
import type { ExecutionStore } from '../store/ports';
import { sendText } from './params';
import { intQuery, type RouteTable } from './route-table';
import { z } from 'zod';
import { Errors } from '../model/named-errors';

// /api/admin (Conductor's AdminResource): the running configuration, pending tasks of a type, re-queueing.

/** A page of pending tasks: Conductor's default of 100, at most 5,000 as a search. */
const PENDING_PAGE = { start: intQuery({ min: 0, fallback: 0 }), count: intQuery({ min: 0, max: 5000, fallback: 100 }) };

const SECRET_KEY = /PASSWORD|TOKEN|SECRET|CREDENTIAL/i;
export const REDACTED = '********';

/** The configuration as served: secrets replaced, and credentials inside URLs too. */
export function redactConfig(cfg: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cfg)) {
    if (v !== undefined && SECRET_KEY.test(k)) out[k] = REDACTED;
    else if (typeof v === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/@]*@/i.test(v)) out[k] = v.replace(/\/\/[^/@]*@/, `//${REDACTED}@`);
    else out[k] = v;
  }
  return out;
}

export interface AdminDeps {
  config: Record<string, unknown>;
  version: string;
  workflows: WorkflowService;
  store: ExecutionStore;
  index: SearchIndex;
}

/** Declares the routes under `r` (mounted at /api/admin). */
export function adminRoutes(r: RouteTable, d: AdminDeps): void {
  r.get(
    '/config',
    { permission: 'admin', summary: 'The running configuration (secrets redacted)', res: { inline: z.record(z.string(), z.unknown()) } },
    (_req, res) => {
      res.json({ ...redactConfig(d.config), version: d.version });
    },
  );

  // The search index finds the candidates (its lag: the flush interval, or the open-document hold); the store has the say on
  // what is still pending, so a task that ended since it was indexed is left out.
  r.get(
    '/task/{tasktype}',
    {
      permission: 'admin',
      summary: 'Pending (SCHEDULED or IN_PROGRESS) tasks of a type',
      query: PENDING_PAGE,
      res: { list: 'Task' },
    },
    async (req, res) => {
      const start = PENDING_PAGE.start.read(req, 'start');
      const count = PENDING_PAGE.count.read(req, 'count');
      const hits = await d.index.searchTasks({
        query: {
          op: 'and',
          left: { op: 'cmp', field: 'taskType', cmp: '=', value: req.params.tasktype },
          right: { op: 'in', field: 'status', values: ['SCHEDULED', 'IN_PROGRESS'] },
        },
        freeText: { kind: 'all' },
        sort: [{ field: 'scheduledTime', order: 'ASC' }],
        start,
        size: count,
      });
      const out: Task[] = [];
      for (const s of hits.results) {
        const t = await d.store.getTask(s.taskId);
        if (t && !isTerminalTask(t.status)) out.push(withComputed(t));
      }
      res.json(out);
    },
  );

  // Conductor pushes the workflow to its sweeper queue; Baton asks the actor to re-push its SCHEDULED tasks and re-arm its deadline.
  r.post(
    '/sweep/requeue/{workflowId}',
    { permission: 'admin', summary: "Re-push an execution's scheduled tasks and re-arm its deadline; answers true.<workflowId>", res: 'text' },
    async (req, res) => {
      const id = req.params.workflowId;
      if (!(await d.workflows.exists(id))) throw Errors.WORKFLOW_NOT_FOUND(id);
      await d.workflows.reevaluate(id);
      sendText(res, `true.${id}`);
    },
  );

  // Conductor's consistency check repairs queue state against the stored execution; in Baton the execution's
  // actor does exactly that on recover (re-push SCHEDULED tasks, re-arm its deadline, re-run its outbox).
  r.post(
    '/consistency/verifyAndRepair/{workflowId}',
    { permission: 'admin', summary: "Repair an execution's queue entries, deadline and outbox from its stored state; answers true", res: 'text' },
    async (req, res) => {
      const id = req.params.workflowId;
      if (!(await d.workflows.exists(id))) throw Errors.WORKFLOW_NOT_FOUND(id);
      await d.workflows.reevaluate(id);
      sendText(res, 'true');
    },
  );
}
