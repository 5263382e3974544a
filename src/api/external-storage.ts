import type { Request } from 'express';
import { ApiError } from '../services/errors';
import { strParam } from './params';
import { oneOf, requiredText, type RouteDoc } from './route-table';

// GET /api/{workflow,tasks}/externalstoragelocation. Baton keeps every payload
// inline in the execution, so it has no location to give: the request is checked like Conductor's,
// then refused with 501 and a message a client library's user can act on.

export const EXTERNAL_STORAGE_PATHS = ['/externalstoragelocation', '/external-storage-location'];

const OPERATIONS = ['READ', 'WRITE'];
const PAYLOAD_TYPES = ['WORKFLOW_INPUT', 'WORKFLOW_OUTPUT', 'TASK_INPUT', 'TASK_OUTPUT'];

export const EXTERNAL_STORAGE_DOC: RouteDoc = {
  permission: 'executions:read',
  summary: 'External payload storage location: not available in Baton (payloads travel inline); 400 for bad parameters, else 501',
  query: { path: requiredText, operation: { schema: oneOf(OPERATIONS), required: true }, payloadType: { schema: oneOf(PAYLOAD_TYPES), required: true } },
  res: 'empty',
  status: 501,
};

export function externalStorageLocation(req: Request): never {
  const errors: Array<{ path: string; message: string; invalidValue?: unknown }> = [];
  const path = strParam(req, 'path');
  const operation = strParam(req, 'operation');
  const payloadType = strParam(req, 'payloadType');
  if (!path) errors.push({ path: 'path', message: 'is required' });
  if (!operation || !OPERATIONS.includes(operation.toUpperCase()))
    errors.push({ path: 'operation', message: `must be one of ${OPERATIONS.join(', ')}`, invalidValue: operation });
  if (!payloadType || !PAYLOAD_TYPES.includes(payloadType.toUpperCase()))
    errors.push({ path: 'payloadType', message: `must be one of ${PAYLOAD_TYPES.join(', ')}`, invalidValue: payloadType });
  if (errors.length > 0) throw new ApiError(400, `Invalid input - ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  throw new ApiError(
    501,
    'External payload storage is not available in Baton: payloads travel inline, up to BATON_TASK_PAYLOAD_MAX_BYTES per task and BATON_WORKFLOW_PAYLOAD_MAX_BYTES per workflow',
  );
}
