import { z } from 'zod';
import { EventExecutionSchema } from '../model/events';
import type { MetadataService } from '../services/metadata-service';
import { eventMessages, handlerStatistics, pageOf } from '../services/event-statistics';
import { intQuery, type RouteTable } from './route-table';

// What event handlers did, in the shapes of Orkes' EventExecutionResource and EventMessageResource
// (the SDK's EventClient): handler statistics, each handler's executions, each event's messages.
// `from` skips that many records; a page holds PAGE_SIZE.

export const EVENT_PAGE_SIZE = 100;

const HandledEvent = z.object({
  name: z.string(),
  event: z.string(),
  active: z.boolean(),
  numberOfActions: z.number().int(),
  numberOfMessages: z.number().int(),
});
const HandledEvents = z.object({ results: z.array(HandledEvent), totalHits: z.number().int() });
const EventMessage = z.object({
  id: z.string(),
  eventTarget: z.string(),
  eventType: z.literal('MESSAGE'),
  createdAt: z.number(),
  status: z.literal('HANDLED'),
  payload: z.string().optional(),
  fullPayload: z.record(z.string(), z.unknown()).optional(),
  eventExecutions: z.array(EventExecutionSchema),
});
const fromParam = { from: intQuery({ min: 0, fallback: 0 }) };

/** Declares the routes under `r` (mounted at /api/event, before `/{name}`). */
export function eventExecutionRoutes(r: RouteTable, deps: { metadata: MetadataService }): void {
  const store = () => deps.metadata.store;
  const statistics = async (activeOnly: boolean) => {
    const handlers = (await store().listEventHandlers()).filter((h) => !activeOnly || h.active);
    const results = handlerStatistics(handlers, await store().listEventExecutions());
    return { results, totalHits: results.length };
  };

  r.get(
    '/execution',
    { permission: 'definitions:read', summary: 'Active event handlers with the messages and actions each handled', res: { inline: HandledEvents } },
    async (_req, res) => {
      res.json(await statistics(true));
    },
  );
  r.get(
    '/execution/{name}',
    {
      permission: 'definitions:read',
      summary: 'What one event handler did: one record per action, oldest first',
      query: fromParam,
      res: { list: 'EventExecution' },
    },
    async (req, res) => {
      res.json(pageOf(await store().listEventExecutions(req.params.name), fromParam.from.read(req, 'from'), EVENT_PAGE_SIZE));
    },
  );
  r.get(
    '/message',
    {
      permission: 'definitions:read',
      summary: 'Every event handler with the messages and actions it handled',
      query: fromParam,
      res: { inline: HandledEvents },
    },
    async (req, res) => {
      const all = await statistics(false);
      res.json({ results: pageOf(all.results, fromParam.from.read(req, 'from'), EVENT_PAGE_SIZE), totalHits: all.totalHits });
    },
  );
  r.get(
    '/message/{event}',
    {
      permission: 'definitions:read',
      summary: 'The messages of an event that handlers acted on, with their executions',
      query: fromParam,
      res: { inline: z.array(EventMessage) },
    },
    async (req, res) => {
      res.json(pageOf(eventMessages(req.params.event, await store().listEventExecutions()), fromParam.from.read(req, 'from'), EVENT_PAGE_SIZE));
    },
  );
}
