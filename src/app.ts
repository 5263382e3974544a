import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { SearchIndex } from './search/ports';
import type { ExecutionStore, SchemaStore } from './store/ports';
import type { SchemaEnforcer } from './services/schema-enforcer';
import type { MetadataService } from './services/metadata-service';
import type { SecretService } from './services/secret-service';
import type { TaskService } from './services/task-service';
import type { WorkflowService } from './services/workflow-service';
import { errorHandler, notFoundHandler } from './api/errors';
import { apiRoutes } from './api/routes';
import { mountRoutes, routeTemplates, type Route } from './api/route-table';
import { RouteMatcher, type RouteMatch } from './api/route-matcher';
import { methodGuard, methodTable } from './api/allowed-methods';
import type { ScheduleService } from './services/schedule-service';
import { ExecutionWaiter } from './services/execution-waiter';
import { WorkflowTestRunner } from './services/workflow-test-run';
import { hotPath } from './api/hot-path';
import { takeRequestTarget } from './api/canonical-request';
import type { RequestTarget } from './api/request-target';
import { jsonDepthGuard } from './api/json-depth';
import { TASK_LOG_PATH, taskLogBodyParser } from './api/task-log-body';
import { workerCalls, type WorkerCalls } from './api/worker-calls';
import type { AuthRoutesDeps } from './api/auth-routes';
import type { RequestGate } from './auth/request-gate';
import { consoleRouter } from './api/console';
import type { Tracer } from '@opentelemetry/api';
import type { MetricsExposition } from './api/metrics-route';
import { noMetrics, type Metrics } from './metrics/ports';
import { observedRequests } from './telemetry/observed-requests';
import type { IncomingEvents } from './api/event-routes';
import { secretValueBody } from './api/secret-routes';
import { OBJECTS_PATH, objectBody } from './api/object-routes';
import type { ServedObjectLinks } from './objects/open-object-store';
import type { ExternalPayloads } from './objects/external-payloads';
import type { BatchService } from './batch/batch-service';

export interface AppDeps {
  workflows: WorkflowService;
  tasks: TaskService;
  metadata: MetadataService;
  /** Secrets: their API, and revealing `${workflow.secrets.NAME}` in polled tasks. */
  secrets?: SecretService;
  store: ExecutionStore;
  index: SearchIndex;
  log: Logger;
  maxBodyBytes: number;
  /** Deepest nesting of a JSON body (BATON_MAX_JSON_DEPTH); deeper is a 400. */
  maxJsonDepth: number;
  version: string;
  /** Wakes requests that wait for executions (execute, signal/sync, test); without it they only poll. */
  waiter?: ExecutionWaiter;
  /** The configuration served by /api/admin/config (secrets redacted there). */
  config?: Record<string, unknown>;
  /** Extra routes mounted before the body parsers and the API (the Dapr app channel in the distributed profile). */
  mount?: (app: Express) => void;
  /** Who may do what (src/auth): the gate every request passes first, and the token and application routes. */
  access?: { gate: RequestGate; routes: AuthRoutesDeps };
  /** Workflow schedules (/api/scheduler). */
  schedules?: ScheduleService;
  /** Runs the event handlers of an event (POST /api/event/handleIncomingEvent); absent: that route answers 501. */
  incomingEvents?: IncomingEvents;
  /** The built operator console served at `/` (default dist/ui); false serves none. */
  consoleDir?: string | false;
  /** JSON schemas (the /api/schema routes) and their enforcement on worker results. */
  schemas?: SchemaStore;
  /** Most schema versions stored (BATON_MAX_SCHEMAS). */
  maxSchemas?: number;
  schemaEnforcer?: SchemaEnforcer;
  /** Records request latencies and serves GET /metrics (absent: /metrics answers 404, nothing is timed). */
  metrics?: Metrics & MetricsExposition;
  /** Makes a span of every request when traces are exported. */
  tracer?: Tracer;
  /** Batches by query (/api/batch). */
  batches?: BatchService;
  /** The liveness verdict of GET /health (the actor host's self-probe); absent: always healthy. */
  healthy?: () => boolean;
  /** The directory object store's signed links (GET|PUT /api/objects/{key}); absent with a bucket. */
  objectLinks?: ServedObjectLinks;
  /** Conductor's external payload storage: locations, and payloads named by path on starts and task updates. */
  payloads?: ExternalPayloads;
}

/** The HTTP front end: the hot worker calls straight on node:http, everything else through express. */
export function createRequestHandler(d: AppDeps): ((req: IncomingMessage, res: ServerResponse) => void) & { app: Express } {
  const calls = workerCalls(d);
  const routes = tableOf(d, calls);
  const app = createApp(d, routes);
  // The table's matcher, built once: the gate reads the matched route's permission, the hot path its call.
  const table = new RouteMatcher(routes);
  const hot = hotPath(calls, { maxBodyBytes: d.maxBodyBytes, maxJsonDepth: d.maxJsonDepth, log: d.log });
  const serve = (req: IncomingMessage, res: ServerResponse, target: RequestTarget, found: RouteMatch<Route> | undefined): void => {
    if (!hot(req, res, target, found)) app(req, res);
  };
  const gate = d.access?.gate;
  const gated = (req: IncomingMessage, res: ServerResponse): void => {
    // First of all: one reading of the request target, which the gate, the hot path and express all read.
    const target = takeRequestTarget(req, res);
    if (!target) return;
    const found = table.match(req.method, target.path);
    if (!gate) return serve(req, res, target, found);
    // Synchronous for most requests (token and key cached); the hot path then runs as before.
    const pass = gate(req, res, target, found);
    if (pass === true) serve(req, res, target, found);
    else if (pass !== false) void pass.then((ok) => ok && serve(req, res, target, found));
  };
  const handler = d.metrics || d.tracer ? observedRequests(gated, d.metrics ?? noMetrics, d.tracer) : gated;
  return Object.assign(handler, { app });
}

/** The route table with the services behind it. */
function tableOf(d: AppDeps, calls: WorkerCalls): Route[] {
  const waiter = d.waiter ?? new ExecutionWaiter();
  return apiRoutes({
    workflows: d.workflows,
    tasks: d.tasks,
    metadata: d.metadata,
    secrets: d.secrets,
    store: d.store,
    index: d.index,
    waiter,
    testRunner: new WorkflowTestRunner({ workflows: d.workflows, store: d.store, waiter }),
    calls,
    config: d.config ?? {},
    version: d.version,
    access: d.access,
    schedules: d.schedules,
    incomingEvents: d.incomingEvents,
    schemas: d.schemas,
    maxSchemas: d.maxSchemas,
    metrics: d.metrics,
    healthy: d.healthy,
    objectLinks: d.objectLinks,
    payloads: d.payloads,
    batches: d.batches,
  });
}

/** The express front end: stateless, every change goes to an actor. Its routes are the route table's (src/api/routes.ts). */
export function createApp(d: AppDeps, routes: readonly Route[] = tableOf(d, workerCalls(d))): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Before the body parsers: the Dapr app channel reads raw bodies (CloudEvents are application/*+json).
  d.mount?.(app);
  app.use(methodGuard(methodTable(routeTemplates(routes))));
  // The task log takes its body as text whatever its type (task-log-body.ts), so ahead of JSON.
  app.use(TASK_LOG_PATH, taskLogBodyParser(d.maxBodyBytes));
  // A secret's value is its body as sent (the Python SDK sends it unquoted as application/json).
  app.use('/api/secrets', secretValueBody(d.maxBodyBytes));
  // An object's body is its bytes as sent, read only once its link is checked.
  app.use(OBJECTS_PATH, objectBody(d, d.maxBodyBytes));
  // JSON for any JSON-ish type; strict off so a bare JSON string parses too.
  app.use(express.json({ limit: d.maxBodyBytes, strict: false, type: ['application/json', 'application/*+json'] }));
  app.use(express.text({ limit: d.maxBodyBytes, type: 'text/*' }));
  app.use(jsonDepthGuard(d.maxJsonDepth));
  mountRoutes(app, routes);
  if (d.consoleDir !== false) app.use(consoleRouter(d.consoleDir));
  app.use(notFoundHandler);
  app.use(errorHandler(d.log));
  return app;
}
