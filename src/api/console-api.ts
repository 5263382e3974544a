import type { z } from 'zod';
import type { Role } from '../model/applications';
import type { Overview } from '../search/overview';
import type { BatchRecord, BatchView } from '../model/batch';
import type { GrantedAccessOut, GroupOut, RoleOut, UserOut } from './authorization-routes';
import type { COMPONENTS } from './openapi';
import type { Body, ComponentName } from './route-table';

// The routes the operator console (ui/) calls, keyed `METHOD /path` as the route table spells them,
// with the answer the table declares; the console's client (ui/src/api/typed.ts) takes its paths and
// answer types from here. test/unit/api/console-api.test.ts checks every row against the table.

/** An answer the table declares with an inline schema: the console names its type here. */
export interface Inline<T> {
  inline: true;
  /** Never set: carries the type. */
  type?: T;
}
const inline = <T>(): Inline<T> => ({ inline: true });

type AccessUser = z.output<typeof UserOut>;
type AccessGroup = z.output<typeof GroupOut>;
type RoleView = z.output<typeof RoleOut>;

type Answer = Exclude<Body, { inline: z.ZodType }> | Inline<unknown>;

export const CONSOLE_ROUTES = {
  'GET /api/token/userInfo': { res: inline<{ name?: string; roles?: Array<{ name: Role }> }>() },
  'POST /api/token': { res: inline<{ token: string }>() },
  'GET /api/workflow/search': { res: 'SearchResultWorkflowSummary' },
  'GET /api/tasks/search-v2': { res: 'SearchResultTask' },
  'GET /api/workflow/{workflowId}': { res: 'Workflow' },
  'POST /api/workflow': { res: 'text' },
  'PUT /api/workflow/{workflowId}/pause': { res: 'empty' },
  'PUT /api/workflow/{workflowId}/resume': { res: 'empty' },
  'DELETE /api/workflow/{workflowId}': { res: 'empty' },
  'DELETE /api/workflow/{workflowId}/remove': { res: 'empty' },
  'POST /api/workflow/{workflowId}/restart': { res: 'empty' },
  'POST /api/workflow/{workflowId}/retry': { res: 'empty' },
  'POST /api/workflow/{workflowId}/resetcallbacks': { res: 'empty' },
  'POST /api/workflow/{workflowId}/rerun': { res: 'text' },
  'PUT /api/workflow/{workflowId}/skiptask/{taskReferenceName}': { res: 'empty' },
  'PUT /api/workflow/bulk/pause': { res: 'BulkResponse' },
  'PUT /api/workflow/bulk/resume': { res: 'BulkResponse' },
  'POST /api/workflow/bulk/retry': { res: 'BulkResponse' },
  'POST /api/workflow/bulk/restart': { res: 'BulkResponse' },
  'POST /api/workflow/bulk/terminate': { res: 'BulkResponse' },
  'DELETE /api/workflow/bulk/remove': { res: 'BulkResponse' },
  'POST /api/batch': { res: inline<{ id: string; matched: number }>() },
  'GET /api/batch': { res: inline<BatchRecord[]>() },
  'GET /api/batch/{batchId}': { res: inline<BatchView>() },
  'POST /api/batch/{batchId}/cancel': { res: inline<BatchRecord>() },
  'GET /api/tasks/{taskId}/log': { res: { list: 'TaskExecLog' } },
  'POST /api/task': { res: 'text' },
  'GET /api/tasks/queue/all': { res: inline<Record<string, number>>() },
  'GET /api/overview': { res: inline<Overview>() },
  'GET /api/tasks/queue/polldata/all': { res: { list: 'PollData' } },
  'POST /api/tasks/queue/requeue/{taskType}': { res: 'text' },
  'GET /api/metadata/workflowdef': { res: { list: 'WorkflowDef' } },
  'GET /api/metadata/workflowdef/names': { res: inline<string[]>() },
  'GET /api/metadata/workflowdef/names-and-versions': { res: inline<Record<string, Array<{ version: number }>>>() },
  'GET /api/metadata/workflowdef/{name}': { res: 'WorkflowDef' },
  'POST /api/metadata/workflowdef/validate': { res: 'empty' },
  'PUT /api/metadata/workflowdef': { res: 'BulkResponse' },
  'DELETE /api/metadata/workflowdef/{name}/{version}': { res: 'empty' },
  'GET /api/metadata/taskdef': { res: { list: 'TaskDef' } },
  'GET /api/metadata/taskdef/{name}': { res: 'TaskDef' },
  'PUT /api/metadata/taskdef': { res: 'empty' },
  'GET /api/event': { res: { list: 'EventHandler' } },
  'POST /api/event': { res: 'empty' },
  'PUT /api/event': { res: 'empty' },
  'DELETE /api/event/{name}': { res: 'empty' },
  'GET /api/users': { res: inline<AccessUser[]>() },
  'PUT /api/users/{id}': { res: inline<AccessUser>() },
  'DELETE /api/users/{id}': { res: 'empty' },
  'GET /api/users/{userId}/permissions': { res: inline<z.output<typeof GrantedAccessOut>>() },
  'GET /api/groups': { res: inline<AccessGroup[]>() },
  'PUT /api/groups/{id}': { res: inline<AccessGroup>() },
  'DELETE /api/groups/{id}': { res: 'empty' },
  'GET /api/groups/{groupId}/permissions': { res: inline<z.output<typeof GrantedAccessOut>>() },
  'POST /api/groups/{groupId}/users/{userId}': { res: 'empty' },
  'DELETE /api/groups/{groupId}/users/{userId}': { res: 'empty' },
  'POST /api/auth/authorization': { res: 'empty' },
  'DELETE /api/auth/authorization': { res: 'empty' },
  'GET /api/roles/system': { res: inline<Record<string, RoleView>>() },
  'GET /api/roles/custom': { res: inline<RoleView[]>() },
  'GET /api/roles/permissions': { res: inline<Record<string, string[]>>() },
  'POST /api/roles': { res: inline<RoleView>() },
  'DELETE /api/roles/{name}': { res: 'empty' },
} as const satisfies Record<string, { res: Answer }>;

export type ConsoleRoute = keyof typeof CONSOLE_ROUTES;

type Output<N extends ComponentName> = z.output<(typeof COMPONENTS)[N]['schema']>;
type Payload<A> = A extends ComponentName
  ? Output<A>
  : A extends { list: infer N extends ComponentName }
    ? Array<Output<N>>
    : A extends 'text'
      ? string
      : A extends Inline<infer T>
        ? T
        : undefined;

/** What the route answers, typed from its zod schema (or the console's own type of an inline answer). */
export type AnswerOf<R extends ConsoleRoute> = Payload<(typeof CONSOLE_ROUTES)[R]['res']>;

type ParamNames<P> = P extends `${string}{${infer N}}${infer Rest}` ? N | ParamNames<Rest> : never;
/** The path parameters of the route, by the names its template gives them. */
export type ParamsOf<R extends ConsoleRoute> = Record<ParamNames<R>, string | number>;
