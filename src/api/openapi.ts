import { z } from 'zod';
import { TaskDefSchema, WorkflowDefSchema } from '../model/definitions';
import { EventExecutionSchema, EventHandlerRequestSchema, EventHandlerSchema } from '../model/events';
import { TaskExecLogSchema, TaskSchema, WorkflowSchema } from '../model/execution';
import {
  RerunWorkflowRequestSchema,
  SkipTaskRequestSchema,
  StartWorkflowRequestSchema,
  ExecuteWorkflowRequestSchema,
  TaskResultSchema,
  UpgradeWorkflowRequestSchema,
} from '../model/requests';
import { TaskSummarySchema, WorkflowSummarySchema, searchResultSchema } from '../model/summaries';
import { SignalResponseSchema } from '../model/signals';
import { WorkflowTestRequestSchema } from '../model/workflow-test';
import { ErrorResponseSchema, PollDataSchema } from '../model/responses';
import { BulkIdsSchema, BulkResponseSchema } from '../model/bulk';
import type { Body, ComponentName, JsonSchema, QueryKind, Route } from './route-table';
import { isJsonBody, type JsonBody } from './request-body';

// The OpenAPI 3.1 document served at /api-docs, generated from the route table (src/api/routes.ts):
// every route Baton serves, its parameters, and its request and response bodies as JSON Schema
// generated from the zod schemas (z.toJSONSchema).

/** Named schemas: responses are described as Baton writes them, request bodies as Baton accepts them. */
export const COMPONENTS = {
  Workflow: { schema: WorkflowSchema, io: 'output' },
  Task: { schema: TaskSchema, io: 'output' },
  WorkflowDef: { schema: WorkflowDefSchema, io: 'output' },
  TaskDef: { schema: TaskDefSchema, io: 'output' },
  EventHandler: { schema: EventHandlerSchema, io: 'output' },
  EventExecution: { schema: EventExecutionSchema, io: 'output' },
  TaskExecLog: { schema: TaskExecLogSchema, io: 'output' },
  PollData: { schema: PollDataSchema, io: 'output' },
  SearchResultWorkflowSummary: { schema: searchResultSchema(WorkflowSummarySchema), io: 'output' },
  SearchResultTaskSummary: { schema: searchResultSchema(TaskSummarySchema), io: 'output' },
  SearchResultTask: { schema: searchResultSchema(TaskSchema), io: 'output' },
  SearchResultWorkflow: { schema: searchResultSchema(WorkflowSchema), io: 'output' },
  BulkResponse: { schema: BulkResponseSchema, io: 'output' },
  SignalResponse: { schema: SignalResponseSchema, io: 'output' },
  ErrorResponse: { schema: ErrorResponseSchema, io: 'output' },
  WorkflowDefRequest: { schema: WorkflowDefSchema, io: 'input' },
  TaskDefRequest: { schema: TaskDefSchema, io: 'input' },
  EventHandlerRequest: { schema: EventHandlerRequestSchema, io: 'input' },
  StartWorkflowRequest: { schema: StartWorkflowRequestSchema, io: 'input' },
  ExecuteWorkflowRequest: { schema: ExecuteWorkflowRequestSchema, io: 'input' },
  WorkflowTestRequest: { schema: WorkflowTestRequestSchema, io: 'input' },
  TaskResult: { schema: TaskResultSchema, io: 'input' },
  RerunWorkflowRequest: { schema: RerunWorkflowRequestSchema, io: 'input' },
  UpgradeWorkflowRequest: { schema: UpgradeWorkflowRequestSchema, io: 'input' },
  SkipTaskRequest: { schema: SkipTaskRequestSchema, io: 'input' },
  WorkflowIds: { schema: BulkIdsSchema, io: 'input' },
} as const satisfies Record<ComponentName, { schema: z.ZodType; io: 'input' | 'output' }>;

/** One component as JSON Schema, its `$defs` hoisted to components (prefixed) so every `$ref` resolves in the document. */
function toComponent(name: string, schema: z.ZodType, io: 'input' | 'output', into: Record<string, JsonSchema>): JsonSchema {
  const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        k === '$ref' && typeof x === 'string' && x.startsWith('#/$defs/')
          ? `#/components/schemas/${name}_${x.slice(8)}`
          : k === '$ref' && x === '#'
            ? `#/components/schemas/${name}`
            : rewrite(x),
      ]),
    );
  };
  for (const [def, s] of Object.entries($defs ?? {})) into[`${name}_${def}`] = rewrite(s) as JsonSchema;
  return rewrite(rest) as JsonSchema;
}

function content(body: Body, inline: (s: z.ZodType) => JsonSchema): Record<string, unknown> | undefined {
  if (body === 'empty') return undefined;
  if (body === 'text') return { 'text/plain': { schema: { type: 'string' } } };
  const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
  const schema = typeof body === 'string' ? ref(body) : 'list' in body ? { type: 'array', items: ref(body.list) } : inline(body.inline);
  return { 'application/json': { schema } };
}

/** Request components by schema: a route body parsed by one of these schemas is documented as a reference to it. */
const REQUEST_COMPONENTS = new Map<z.ZodType, ComponentName>(
  Object.entries(COMPONENTS).flatMap(([name, c]) => (c.io === 'input' ? [[c.schema as z.ZodType, name as ComponentName]] : [])),
);

/** The request body of a route: the schema its runner parses with, as a component when it is one. */
function requestBody(body: JsonBody | Body, inline: (s: z.ZodType) => JsonSchema, optional: boolean): Record<string, unknown> | undefined {
  if (!isJsonBody(body)) {
    const c = content(body, inline);
    return c && { required: body !== 'text' && !optional, content: c };
  }
  const component = REQUEST_COMPONENTS.get(body.schema);
  const c = content(component ?? { inline: body.schema }, inline);
  return { required: !body.optional, content: c };
}

const QUERY_SCHEMA: Record<QueryKind, JsonSchema> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  // Any text is a list to the handlers (listParam): items split at commas, the parameter may repeat.
  list: { type: 'string', description: 'comma-separated values; the parameter may also repeat' },
};

/** Builds the document from the route table (once per app). */
export function openApiDocument(version: string, routes: readonly Route[]): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, c] of Object.entries(COMPONENTS)) schemas[name] = toComponent(name, c.schema, c.io, schemas);
  let n = 0;
  // Request bodies as accepted (defaults optional, unknown properties ignored as Conductor does), responses as written.
  const inline =
    (io: 'input' | 'output') =>
    (s: z.ZodType): JsonSchema =>
      toComponent(`Inline${++n}`, s, io, schemas);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const pathParams = [...r.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
      const p = r.pathParams?.[name!];
      return { name, in: 'path', required: true, ...(p?.description ? { description: p.description } : {}), schema: p?.schema ?? { type: 'string' } };
    });
    const queryParams = Object.entries(r.query ?? {}).map(([name, q]) => {
      const required = typeof q === 'object' && q.required === true;
      const schema = typeof q === 'object' ? q.schema : QUERY_SCHEMA[q];
      // The handlers read an empty value as an absent one (the default).
      return { name, in: 'query', required, ...(required ? {} : { allowEmptyValue: true }), schema };
    });
    const request = r.body ? requestBody(r.body, inline('input'), r.bodyOptional === true) : undefined;
    const responseContent = content(r.res, inline('output'));
    const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } };
    (paths[r.path] ??= {})[r.method] = {
      summary: r.summary,
      ...(pathParams.length + queryParams.length > 0 ? { parameters: [...pathParams, ...queryParams] } : {}),
      ...(request ? { requestBody: request } : {}),
      responses: {
        [String(r.status ?? 200)]: { description: 'Success', ...(responseContent ? { content: responseContent } : {}) },
        ...(r.empty ? { [String(r.empty)]: { description: 'Nothing to answer' } } : {}),
        '4XX': { description: 'Client mistake: 400 invalid input, 404 unknown id, 409 conflicting state, 413 too large', content: errorContent },
        '5XX': { description: 'Server error', content: errorContent },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Baton', version, description: 'The Conductor REST API as Baton serves it.' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: { schemas },
  };
}
