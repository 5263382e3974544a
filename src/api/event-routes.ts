import { z } from 'zod';
import type { PublishedEvent } from '../events/ports';
import { newId } from '../ids';
import { nameSchema } from '../model/definitions';
import { EventHandlerRequestSchema } from '../model/events';
import { checkDefinitionCount, checkDefinitionSize } from '../services/definition-limits';
import type { MetadataService } from '../services/metadata-service';
import { boolParam } from './params';
import { jsonBody } from './request-body';
import type { RouteTable } from './route-table';
import { eventExecutionRoutes } from './event-execution-routes';
import { Errors } from '../model/named-errors';
import { actorOf } from './actor';

// /api/event: event handler definitions and the record of what they did (Conductor's EventResource).

/** Runs the active handlers of an event (the event-handler processor); resolves once they have run. */
export type IncomingEvents = (e: PublishedEvent) => Promise<void>;

/** Orkes' incoming event: a JSON object naming its event in `event`; the whole object is the payload handlers see. */
const IncomingEventSchema = z.looseObject({ event: nameSchema('event', 'event is required: the name of the event to handle') });

/** Orkes (and the SDK's EventClient) send a list of handlers, Conductor OSS one: read as a list, a single one as its first item. */
const HANDLERS = jsonBody(
  z.preprocess((b) => (Array.isArray(b) ? b : [b]), z.array(EventHandlerRequestSchema)),
  'eventHandler',
);
const HANDLER = jsonBody(EventHandlerRequestSchema, 'eventHandler');
const INCOMING_EVENT = jsonBody(IncomingEventSchema, 'event');

/** Declares the routes under `t` (mounted at /api/event). */
export function eventRoutes(r: RouteTable, deps: { metadata: MetadataService; incomingEvents?: IncomingEvents }): void {
  const store = () => deps.metadata.store;
  const limits = () => deps.metadata.limits;

  r.post(
    '/',
    { permission: 'definitions:write', summary: 'Add an event handler, or a list of them (409 when a name exists)', body: HANDLERS, res: 'empty' },
    async (req, res) => {
      if (req.body.length === 0) throw Errors.BODY_MISSING('eventHandler');
      const by = actorOf(req);
      const handlers = req.body.map((h) => ({ ...h, createdBy: by }));
      for (const h of handlers) {
        checkDefinitionSize('EventHandler', h.name, h, limits());
        if (await store().getEventHandler(h.name)) throw Errors.EVENT_HANDLER_EXISTS(h.name);
      }
      if (new Set(handlers.map((h) => h.name)).size !== handlers.length) throw Errors.EVENT_HANDLER_NAMES_REPEATED();
      checkDefinitionCount('EventHandler', (await store().listEventHandlers()).length + handlers.length - 1, limits());
      for (const h of handlers) await store().putEventHandler(h);
      res.status(200).end();
    },
  );

  r.put('/', { permission: 'definitions:write', summary: 'Update an event handler (404 when unknown)', body: HANDLER, res: 'empty' }, async (req, res) => {
    const parsed = req.body;
    checkDefinitionSize('EventHandler', parsed.name, parsed, limits());
    const existing = await store().getEventHandler(parsed.name);
    if (!existing) throw Errors.EVENT_HANDLER_NOT_FOUND(parsed.name);
    const h = { ...parsed, createdBy: existing.createdBy ?? actorOf(req) };
    await store().putEventHandler(h);
    res.status(200).end();
  });

  r.get('/', { permission: 'definitions:read', summary: 'All event handlers', res: { list: 'EventHandler' } }, async (_req, res) => {
    res.json(await store().listEventHandlers());
  });

  r.get(
    '/handler/{name}',
    {
      permission: 'definitions:read',
      summary: 'An event handler by its name (404 when unknown)',
      pathParams: { name: { description: 'the event handler name' } },
      res: 'EventHandler',
    },
    async (req, res) => {
      const h = await store().getEventHandler(req.params.name);
      if (!h) throw Errors.EVENT_HANDLER_NOT_FOUND(req.params.name);
      res.json(h);
    },
  );

  // Orkes' handleIncomingEvent: the handlers run before the answer, so their executions can be read right after.
  r.post(
    '/handleIncomingEvent',
    {
      permission: 'executions:start',
      summary: "Run the active handlers of the body's `event` on the body as payload",
      body: INCOMING_EVENT,
      res: 'empty',
    },
    async (req, res) => {
      if (!deps.incomingEvents) throw Errors.EVENT_HANDLING_UNAVAILABLE();
      const payload = req.body;
      await deps.incomingEvents({ id: newId(), event: payload.event, payload });
      res.status(200).end();
    },
  );

  // Registered before `/:event`: `execution` and `message` are not event names.
  eventExecutionRoutes(r, deps);

  // One path item: GET reads {name} as an event, DELETE as a handler name (Conductor's two templates are the same path).
  r.delete(
    '/{name}',
    { permission: 'definitions:write', summary: 'Remove an event handler', pathParams: { name: { description: 'the event handler name' } }, res: 'empty' },
    async (req, res) => {
      if (!(await store().deleteEventHandler(req.params.name))) throw Errors.EVENT_HANDLER_NOT_FOUND(req.params.name);
      res.status(200).end();
    },
  );

  // `/:name` as DELETE spells it (one template for the document), read here as the event.
  r.get(
    '/{name}',
    {
      permission: 'definitions:read',
      summary: 'Handlers of an event (e.g. conductor:wf:ref)',
      pathParams: { name: { description: 'the event' } },
      query: { activeOnly: 'boolean' },
      res: { list: 'EventHandler' },
    },
    async (req, res) => {
      const activeOnly = boolParam(req, 'activeOnly', true);
      res.json((await store().listEventHandlers()).filter((h) => h.event === req.params.name && (!activeOnly || h.active)));
    },
  );
}
