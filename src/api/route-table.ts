import type { Express, NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import type { Permission } from '../auth/roles';
import { intParam, type WithQuery } from './params';
import { isJsonBody, readJsonBody, type JsonBody } from './request-body';

// Every route Baton serves is declared once, here in this shape: method, path, the permission it
// needs, what it takes and answers, and its handler. Generated from the table: the express
// registration with its body validation, the gate's permission lookup and the hot path's dispatch (route-matcher.ts), the
// document at /api-docs (openapi.ts) and the 405 table (allowed-methods.ts).

export type Method = 'get' | 'post' | 'put' | 'delete';

/** The worker calls (worker-calls.ts) the hot path answers. */
export type HotCall = 'pollBatch' | 'update' | 'updateV2' | 'start';

/** Named schemas of the document (src/api/openapi.ts COMPONENTS). */
export type ComponentName =
  | 'Workflow'
  | 'Task'
  | 'WorkflowDef'
  | 'TaskDef'
  | 'EventHandler'
  | 'EventExecution'
  | 'TaskExecLog'
  | 'PollData'
  | 'SearchResultWorkflowSummary'
  | 'SearchResultTaskSummary'
  | 'SearchResultTask'
  | 'SearchResultWorkflow'
  | 'BulkResponse'
  | 'SignalResponse'
  | 'ErrorResponse'
  | 'WorkflowDefRequest'
  | 'TaskDefRequest'
  | 'EventHandlerRequest'
  | 'StartWorkflowRequest'
  | 'ExecuteWorkflowRequest'
  | 'WorkflowTestRequest'
  | 'TaskResult'
  | 'RerunWorkflowRequest'
  | 'UpgradeWorkflowRequest'
  | 'SkipTaskRequest'
  | 'WorkflowIds';

/** A body: a named component, a list of one, an inline schema, plain text, or nothing. */
export type Body = ComponentName | { list: ComponentName } | { inline: z.ZodType } | 'text' | 'empty';
export type QueryKind = 'string' | 'integer' | 'boolean' | 'list';
export type JsonSchema = Record<string, unknown>;
/** A query parameter: its kind, or the JSON Schema of what the handler accepts (`required` when it refuses its absence). */
export type QueryParam = QueryKind | { schema: JsonSchema; required?: true };

/** What a route takes and answers, as the document describes it; `B` is its JSON body once parsed. */
export interface RouteDoc<B = unknown> {
  /** What the caller's token must grant (src/auth/roles.ts); the gate reads it before any handler. */
  permission: Permission;
  summary: string;
  /** Path parameters narrower than any string (integers, enums), with a description where the name alone misleads. */
  pathParams?: Record<string, { schema?: JsonSchema; description?: string }>;
  query?: Record<string, QueryParam>;
  /** A JSON body the runner parses before the handler (request-body.ts); a Body only documents one the handler reads itself. */
  body?: JsonBody<B> | Body;
  /** The handler takes a missing body as empty (a body it reads itself). */
  bodyOptional?: true;
  /** The success answer; 200 unless `status` says otherwise. */
  res: Body;
  status?: number;
  /** Another success answer without a body (204: nothing to hand out). */
  empty?: number;
  /** Also answered on node:http ahead of express (hot-path.ts), in its plain form, by this worker call. */
  hot?: HotCall;
}

/** Path parameters are single segments here (no wildcards); `req.body` is the parsed JSON body when the route declares one. */
export type Handler<B = unknown> = (req: Request<Record<string, string>, unknown, B>, res: Response, next: NextFunction) => unknown;
type ExpressHandler = (req: Request, res: Response, next: NextFunction) => unknown;

export interface Route extends RouteDoc {
  method: Method;
  /** OpenAPI template: `{name}` stands for one segment. */
  path: string;
  handler: Handler<never>;
}

// Constraints the handlers enforce (intParam bounds, enums), so generated requests and the document agree.
export const range = (minimum: number, maximum?: number): QueryParam => ({
  schema: { type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) },
});
/** An integer query parameter declared once: the bounds the document shows are the ones its reader enforces. */
export interface IntQuery {
  schema: JsonSchema;
  /** The value sent, or `fallback` when absent; a 400 naming the parameter outside the bounds. */
  read(req: WithQuery, name: string): number;
}
export const intQuery = (b: { min: number; max?: number; fallback: number }): IntQuery => ({
  ...(range(b.min, b.max) as { schema: JsonSchema }),
  read: (req, name) => intParam(req, name, b.fallback, b.min, b.max)!,
});
export const oneOf = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });
export const requiredText: QueryParam = { schema: { type: 'string', minLength: 1 }, required: true };

/** Collects routes in registration order (the order express matches them in); `under` scopes a path prefix. */
export class RouteTable {
  constructor(
    readonly routes: Route[] = [],
    private readonly prefix = '',
  ) {}

  under(prefix: string): RouteTable {
    return new RouteTable(this.routes, this.prefix + prefix);
  }

  get(paths: string | string[], doc: RouteDoc, handler: Handler): void {
    this.add('get', paths, doc, handler);
  }
  post<B = unknown>(paths: string | string[], doc: RouteDoc<B>, handler: Handler<B>): void {
    this.add('post', paths, doc, handler);
  }
  put<B = unknown>(paths: string | string[], doc: RouteDoc<B>, handler: Handler<B>): void {
    this.add('put', paths, doc, handler);
  }
  delete<B = unknown>(paths: string | string[], doc: RouteDoc<B>, handler: Handler<B>): void {
    this.add('delete', paths, doc, handler);
  }

  private add<B>(method: Method, paths: string | string[], doc: RouteDoc<B>, handler: Handler<B>): void {
    for (const p of Array.isArray(paths) ? paths : [paths])
      this.routes.push({ method, path: this.prefix + (p === '/' ? '' : p) || '/', ...(doc as RouteDoc), handler: handler as Handler<never> });
  }
}

/** `{name}` -> `:name` (express's path syntax). */
export const expressPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

/** The route's JSON body declaration, when the runner parses its body. */
export const jsonBodyOf = (r: RouteDoc): JsonBody | undefined => (isJsonBody(r.body) ? r.body : undefined);

/** The route's handler behind its declaration: a declared JSON body is parsed first (a 400 otherwise) and handed over as `req.body`. */
export function runRoute(r: Route): ExpressHandler {
  const handler = r.handler as ExpressHandler;
  const body = jsonBodyOf(r);
  if (!body) return handler;
  return (req, res, next) => {
    req.body = readJsonBody(body, req.body);
    return handler(req, res, next);
  };
}

/** Registers every route of the table on the app, in table order; express 5 hands a thrown or rejected handler to the error handler. */
export function mountRoutes(app: Express, routes: readonly Route[]): void {
  for (const r of routes) app[r.method](expressPath(r.path), runRoute(r));
}

/** Every (method, path), with the closed sets of values of its path parameters (for 405 answers and the auth table's test). */
export function routeTemplates(
  routes: readonly Route[],
): Array<{ method: Method; path: string; permission: Permission; pathEnums: Record<string, readonly string[]> }> {
  return routes.map(({ method, path, permission, pathParams }) => ({
    method,
    path,
    permission,
    pathEnums: Object.fromEntries(
      Object.entries(pathParams ?? {}).flatMap(([name, p]) => (Array.isArray(p.schema?.enum) ? [[name, p.schema.enum as string[]]] : [])),
    ),
  }));
}
