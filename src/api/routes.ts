import type { SearchIndex } from '../search/ports';
import type { ExecutionWaiter } from '../services/execution-waiter';
import type { MetadataService } from '../services/metadata-service';
import type { ScheduleService } from '../services/schedule-service';
import type { TaskService } from '../services/task-service';
import type { WorkflowService } from '../services/workflow-service';
import type { WorkflowTestRunner } from '../services/workflow-test-run';
import type { ExecutionStore, SchemaStore } from '../store/ports';
import { z } from 'zod';
import { adminRoutes } from './admin-routes';
import { applicationRoutes, tokenRoutes, type AuthRoutesDeps } from './auth-routes';
import { grantRoutes, groupRoutes, userRoutes } from './authorization-routes';
import { roleRoutes } from './role-routes';
import { bulkRoutes } from './bulk-routes';
import { batchRoutes } from './batch-routes';
import type { BatchService } from '../batch/batch-service';
import { eventRoutes, type IncomingEvents } from './event-routes';
import { secretRoutes } from './secret-routes';
import { definitionTagRoutes, eventHandlerTagRoutes } from './tag-routes';
import type { SecretService } from '../services/secret-service';
import { executionRoutes, signalRoutes } from './execution-routes';
import { metadataRoutes } from './metadata-routes';
import { schemaRoutes } from './schema-routes';
import { openApiDocument } from './openapi';
import { schedulerRoutes } from './scheduler-routes';
import { RouteTable, routeTemplates, type Route } from './route-table';
import { queueRoutes, taskById, taskRoutes } from './task-routes';
import type { WorkerCalls } from './worker-calls';
import { workflowRoutes } from './workflow-routes';
import { workflowStateRoutes } from './workflow-state-routes';
import { metricsRoute, type MetricsExposition } from './metrics-route';
import { OBJECTS_PATH, objectRoutes } from './object-routes';
import type { ServedObjectLinks } from '../objects/open-object-store';
import { overviewRoute } from './overview-route';
import type { ExternalPayloads } from '../objects/external-payloads';

// The table of every route, in the order express matches them: bulk and execution routes before
// the workflow routes, whose `/{name}` and `/{workflowId}/...` patterns would take their paths;
// signals before the task routes' `/{workflowId}/{ref}/{status}`.

/** What the route handlers use. */
export interface ApiDeps {
  workflows: WorkflowService;
  tasks: TaskService;
  metadata: MetadataService;
  /** Secrets (src/secrets); the routes answer 503 without it. */
  secrets?: SecretService;
  store: ExecutionStore;
  index: SearchIndex;
  waiter: ExecutionWaiter;
  testRunner: WorkflowTestRunner;
  /** The worker calls the hot path shares (start, poll, update). */
  calls: WorkerCalls;
  config: Record<string, unknown>;
  version: string;
  /** Workflow schedules (the scheduler routes answer 501 without them). */
  schedules?: ScheduleService;
  /** The event-handler processor, for events posted to the API (answers 501 without it). */
  incomingEvents?: IncomingEvents;
  /** The token and application routes, where access control is wired. */
  access?: { routes: AuthRoutesDeps };
  /** JSON schemas (/api/schema). */
  schemas?: SchemaStore;
  /** Most schema versions stored (BATON_MAX_SCHEMAS). */
  maxSchemas?: number;
  /** What GET /metrics serves; absent when metrics are off (BATON_METRICS_ENABLED=false). */
  metrics?: MetricsExposition;
  /** Batches by query (/api/batch; the routes answer 503 without it). */
  batches?: BatchService;
  /** False while the actor host cannot complete calls (GET /health answers 503); absent: always healthy. */
  healthy?: () => boolean;
  /** The directory object store's signed links (GET|PUT /api/objects/{key}); absent with a bucket. */
  objectLinks?: ServedObjectLinks;
  /** Conductor's external payload storage (absent: its location routes answer 501). */
  payloads?: ExternalPayloads;
}

const TASK_BASES = ['/api/tasks', '/api/task'];

export function apiRoutes(d: ApiDeps): Route[] {
  const t = new RouteTable();
  const healthy = { healthy: true, indicators: [] };
  const wedged = { healthy: false, indicators: [{ name: 'actors', healthy: false, message: 'actor calls through this replica keep failing (self-probe)' }] };
  t.get(
    ['/health', '/api/health'],
    {
      permission: 'public',
      summary: 'Liveness: 503 while actor calls through this replica keep failing',
      res: { inline: z.object({ healthy: z.boolean(), indicators: z.array(z.unknown()) }) },
    },
    (_req, res) => (d.healthy?.() === false ? void res.status(503).json(wedged) : void res.json(healthy)),
  );
  t.get('/api/version', { permission: 'authenticated', summary: 'Baton version', res: 'text' }, (_req, res) => void res.type('text/plain').send(d.version));
  let docs: Record<string, unknown> | undefined; // built on first request: most processes never serve it
  t.get(
    '/api-docs',
    { permission: 'authenticated', summary: 'This OpenAPI document', res: { inline: z.record(z.string(), z.unknown()) } },
    (_req, res) => void res.json((docs ??= openApiDocument(d.version, t.routes))),
  );
  metricsRoute(t, d.metrics);
  objectRoutes(t.under(OBJECTS_PATH), d);
  overviewRoute(t, { index: d.index, queues: d.tasks });
  definitionTagRoutes(t.under('/api/metadata'), d);
  metadataRoutes(t.under('/api/metadata'), d);
  eventRoutes(t.under('/api/event'), d);
  eventHandlerTagRoutes(t.under('/api/event'), d);
  schemaRoutes(t.under('/api/schema'), () => d.schemas, d.maxSchemas);
  secretRoutes(t.under('/api'), d);
  adminRoutes(t.under('/api/admin'), d);
  bulkRoutes(t.under('/api/workflow/bulk'), d);
  batchRoutes(t.under('/api/batch'), d);
  executionRoutes(t.under('/api/workflow'), d);
  for (const base of TASK_BASES) signalRoutes(t.under(base), d);
  workflowStateRoutes(t.under('/api/workflow'), d);
  workflowRoutes(t.under('/api/workflow'), d);
  for (const base of TASK_BASES) taskRoutes(t.under(base), d);
  // Task details also answer at `/apitasks/{taskId}`, the path without its slash after /api.
  t.get(
    '/apitasks/{taskId}',
    { permission: 'executions:read', summary: 'A task (the interface spells this path without its slash)', res: 'Task' },
    taskById(d),
  );
  queueRoutes(t.under('/api/queue'), d);
  schedulerRoutes(t.under('/api/scheduler'), d);
  if (d.access) {
    tokenRoutes(t.under('/api/token'), d);
    applicationRoutes(t.under('/api/applications'), d);
    userRoutes(t.under('/api/users'), d);
    groupRoutes(t.under('/api/groups'), d);
    grantRoutes(t.under('/api/auth/authorization'), d);
    roleRoutes(t.under('/api/roles'), d);
  }
  return t.routes;
}

/**
 * Every (method, path) Baton serves, for tables that need them without a running app (the auth
 * table's test). Built with no services behind it: route builders only close over their deps.
 */
export const allRouteTemplates = (): ReturnType<typeof routeTemplates> => routeTemplates(apiRoutes({ access: {} } as ApiDeps));
