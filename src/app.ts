import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { SearchIndex } from './index/ports';
import type { ExecutionStore } from './store/ports';
import type { MetadataService } from './services/metadata-service';
import type { TaskService } from './services/task-service';
import type { WorkflowService } from './services/workflow-service';
import { errorHandler, notFoundHandler } from './api/errors';
import { metadataRouter } from './api/metadata-routes';
import { queueRouter, taskRouter } from './api/task-routes';
import { workflowRouter } from './api/workflow-routes';
import { adminRouter } from './api/admin-routes';
import { bulkRouter } from './api/bulk-routes';
import { eventRouter } from './api/event-routes';
import { executionRouter, signalRouter } from './api/execution-routes';
import { DOCUMENTED_ROUTES, openApiDocument } from './api/openapi';
import { methodGuard, methodTable } from './api/allowed-methods';
import { ExecutionWaiter } from './services/execution-waiter';
import { WorkflowTestRunner } from './services/workflow-test-run';
import { hotPath } from './api/hot-path';
import { jsonDepthGuard } from './api/json-depth';
import { workerCalls, type WorkerCalls } from './api/worker-calls';
import { applicationRouter, tokenRouter, type AuthRoutesDeps } from './api/auth-routes';
import type { RequestGate } from './auth/request-gate';
import { consoleRouter } from './api/console';

export interface AppDeps {
  workflows: WorkflowService;
  tasks: TaskService;
  metadata: MetadataService;
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
  /** The built operator console served at `/` (default dist/ui); false serves none. */
  consoleDir?: string | false;
}

/** The HTTP front end: the hot worker calls straight on node:http, everything else through express. */
export function createRequestHandler(d: AppDeps): ((req: IncomingMessage, res: ServerResponse) => void) & { app: Express } {
  const calls = workerCalls(d);
  const app = createApp(d, calls);
  const hot = hotPath(calls, { maxBodyBytes: d.maxBodyBytes, maxJsonDepth: d.maxJsonDepth, log: d.log });
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (!hot(req, res)) app(req, res);
  };
  const gate = d.access?.gate;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!gate) return serve(req, res);
    // Synchronous for most requests (token and key cached); the hot path then runs as before.
    const pass = gate(req, res);
    if (pass === true) serve(req, res);
    else if (pass !== false) void pass.then((ok) => ok && serve(req, res));
  };
  return Object.assign(handler, { app });
}

/** The express front end: stateless, every change goes to an actor. */
export function createApp(d: AppDeps, calls: WorkerCalls = workerCalls(d)): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Before the body parsers: the Dapr app channel reads raw bodies (CloudEvents are application/*+json).
  d.mount?.(app);
  app.use(methodGuard(methodTable(DOCUMENTED_ROUTES)));
  // JSON for any JSON-ish type; strict off so a bare JSON string (task log) parses too.
  app.use(express.json({ limit: d.maxBodyBytes, strict: false, type: ['application/json', 'application/*+json'] }));
  app.use(express.text({ limit: d.maxBodyBytes, type: 'text/*' }));
  app.use(jsonDepthGuard(d.maxJsonDepth));
  const health = { healthy: true, indicators: [] };
  app.get(['/health', '/api/health'], (_req, res) => void res.json(health));
  app.get('/api/version', (_req, res) => void res.type('text/plain').send(d.version));
  let docs: Record<string, unknown> | undefined; // built on first request: most processes never serve it
  app.get('/api-docs', (_req, res) => void res.json((docs ??= openApiDocument(d.version))));
  app.use('/api/metadata', metadataRouter(d.metadata));
  app.use('/api/event', eventRouter(d.metadata.store, d.metadata.limits));
  app.use('/api/admin', adminRouter({ config: d.config ?? {}, version: d.version, workflows: d.workflows, store: d.store, index: d.index }));
  const waiter = d.waiter ?? new ExecutionWaiter();
  const execution = { workflows: d.workflows, store: d.store, index: d.index, metadata: d.metadata, waiter, testRunner: new WorkflowTestRunner({ workflows: d.workflows, store: d.store, waiter }) };
  // Before the workflow and task routers, whose `/{name}` and `/{workflowId}/{ref}/{status}` patterns would take these paths.
  app.use('/api/workflow/bulk', bulkRouter(execution));
  app.use('/api/workflow', executionRouter(execution));
  app.use(['/api/tasks', '/api/task'], signalRouter(execution));
  app.use('/api/workflow', workflowRouter({ workflows: d.workflows, store: d.store, index: d.index, metadata: d.metadata, startCall: calls.start }));
  const tasks = taskRouter({ tasks: d.tasks, workflows: d.workflows, store: d.store, index: d.index, calls });
  app.use('/api/tasks', tasks);
  app.use('/api/task', tasks);
  // Task details also answer at `/apitasks/{taskId}`, the path without its slash after /api.
  app.get('/apitasks/:taskId', (req, res, next) => {
    req.url = `/${req.params.taskId}`;
    tasks(req, res, next);
  });
  app.use('/api/queue', queueRouter(d.workflows));
  if (d.access) {
    app.use('/api/token', tokenRouter(d.access.routes));
    app.use('/api/applications', applicationRouter(d.access.routes));
  }
  if (d.consoleDir !== false) app.use(consoleRouter(d.consoleDir));
  app.use(notFoundHandler);
  app.use(errorHandler(d.log));
  return app;
}
