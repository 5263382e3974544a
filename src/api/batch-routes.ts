import { z } from 'zod';
import type { BatchService } from '../batch/batch-service';
import { BatchRecordSchema, BatchRequestSchema, BatchStartedSchema, BatchViewSchema } from '../model/batch';
import { Errors } from '../model/named-errors';
import { jsonBody } from './request-body';
import type { RouteTable } from './route-table';

// /api/batch: one action over every execution a workflow search matches (Temporal's batch operations; Conductor's bulk
// routes take ids). Starting one needs the permission of its action; reading them, that of reading executions.

export interface BatchRouteDeps {
  /** Absent: the routes answer 503. */
  batches?: BatchService;
}

export function batchRoutes(r: RouteTable, d: BatchRouteDeps): void {
  const batches = (): BatchService => {
    if (!d.batches) throw Errors.BATCHES_UNAVAILABLE();
    return d.batches;
  };
  r.post(
    '/',
    {
      permission: 'executions:manage',
      summary: 'Start a batch: an action over every execution the search matches; answers its id and the match count',
      body: jsonBody(BatchRequestSchema, 'batchRequest'),
      res: { inline: BatchStartedSchema },
    },
    async (req, res) => void res.json(await batches().start(req.body)),
  );
  r.get(
    '/',
    { permission: 'executions:read', summary: 'Every batch kept, newest first', res: { inline: z.array(BatchRecordSchema) } },
    async (_req, res) => void res.json(await batches().list()),
  );
  r.get(
    '/{batchId}',
    { permission: 'executions:read', summary: 'A batch: its progress and the executions it failed on', res: { inline: BatchViewSchema } },
    async (req, res) => void res.json(await batches().get(req.params.batchId!)),
  );
  r.post(
    '/{batchId}/cancel',
    { permission: 'executions:manage', summary: 'Stop a running batch before its next execution', res: { inline: BatchRecordSchema } },
    async (req, res) => void res.json(await batches().cancel(req.params.batchId!)),
  );
}
