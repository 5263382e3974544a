import type { Request } from 'express';
import { z } from 'zod';
import type { ExternalPayloads } from '../objects/external-payloads';
import { PAYLOAD_TYPES, type PayloadType } from '../objects/payload-keys';
import { Errors } from '../model/named-errors';
import { strParam } from './params';
import type { JsonSchema, RouteDoc } from './route-table';

// GET /api/{workflow,tasks}/externalstoragelocation: Conductor's ExternalStorageLocation {uri, path}.
// WRITE: a fresh path under payloads/ and a link to PUT the payload to; READ: a link to GET the payload
// at `path`. The link is signed (the object store's presigned URL, or Baton's own /api/objects route).

export const EXTERNAL_STORAGE_PATHS = ['/externalstoragelocation', '/external-storage-location'];

const OPERATIONS = ['READ', 'WRITE'] as const;

/** Values read case-insensitively, as Conductor reads these enums: the document says so with a pattern. */
const anyCase = (values: readonly string[]): JsonSchema => ({
  type: 'string',
  pattern: `^(${values.map((v) => [...v].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('')).join('|')})$`,
});

const doc = (permission: RouteDoc['permission']): RouteDoc => ({
  permission,
  summary:
    'External payload storage location {uri, path}: WRITE answers a new path and a signed link to PUT the JSON payload to (a given path is not used), READ a signed link to GET the payload at path',
  query: { path: 'string', operation: { schema: anyCase(OPERATIONS), required: true }, payloadType: { schema: anyCase(PAYLOAD_TYPES), required: true } },
  res: { inline: z.object({ uri: z.string(), path: z.string() }) },
});
/** Starters upload inputs and readers download outputs here. */
export const WORKFLOW_EXTERNAL_STORAGE_DOC = doc('executions:read');
/** Workers upload outputs and download inputs here (the worker role holds tasks:update, not executions:read). */
export const TASK_EXTERNAL_STORAGE_DOC = doc('tasks:update');

export async function externalStorageLocation(req: Request, payloads: ExternalPayloads | undefined): Promise<{ uri: string; path: string }> {
  const errors: Array<{ path: string; message: string; invalidValue?: unknown }> = [];
  const path = strParam(req, 'path');
  const operation = strParam(req, 'operation')?.toUpperCase();
  const payloadType = strParam(req, 'payloadType')?.toUpperCase();
  if (!operation || !(OPERATIONS as readonly string[]).includes(operation))
    errors.push({ path: 'operation', message: `must be one of ${OPERATIONS.join(', ')}`, invalidValue: strParam(req, 'operation') });
  if (!payloadType || !(PAYLOAD_TYPES as readonly string[]).includes(payloadType))
    errors.push({ path: 'payloadType', message: `must be one of ${PAYLOAD_TYPES.join(', ')}`, invalidValue: strParam(req, 'payloadType') });
  if (operation === 'READ' && !path) errors.push({ path: 'path', message: 'is required to READ' });
  if (errors.length > 0) throw Errors.EXTERNAL_STORAGE_REQUEST_INVALID(errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
  if (!payloads) throw Errors.EXTERNAL_STORAGE_UNAVAILABLE();
  return payloads.location(operation as (typeof OPERATIONS)[number], payloadType as PayloadType, path);
}
