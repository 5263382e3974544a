import { Router } from 'express';
import { EventHandlerSchema, type EventHandler } from '../model/events';
import { checkDefinitionCount, checkDefinitionSize, DEFAULT_DEFINITION_LIMITS, type DefinitionLimits } from '../services/definition-limits';
import { ApiError, conflict, notFound } from '../services/errors';
import type { MetadataStore } from '../store/ports';
import { boolParam, parseBody } from './params';

// /api/event: event handler definitions and the record of what they did (Conductor's EventResource).

/** What each action needs to be runnable; values may be `${...}` expressions over the event payload. */
function actionProblems(h: EventHandler): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  h.actions.forEach((a, i) => {
    const path = `eventHandler.actions[${i}].${a.action}`;
    const p = a[a.action] as Record<string, unknown> | null | undefined;
    if (!p) return void problems.push({ path, message: `action ${a.action} needs its '${a.action}' object` });
    const has = (k: string): boolean => typeof p[k] === 'string' && p[k] !== '';
    if (a.action === 'start_workflow' && !has('name')) problems.push({ path: `${path}.name`, message: 'workflow name is required' });
    if ((a.action === 'complete_task' || a.action === 'fail_task') && !has('taskId') && !(has('workflowId') && has('taskRefName'))) {
      problems.push({ path, message: 'taskId, or workflowId and taskRefName, are required' });
    }
    if ((a.action === 'terminate_workflow' || a.action === 'update_workflow_variables') && !has('workflowId')) problems.push({ path: `${path}.workflowId`, message: 'workflowId is required' });
  });
  return problems;
}

function parseHandler(body: unknown): EventHandler {
  const h = parseBody(EventHandlerSchema, body, 'eventHandler');
  const problems = actionProblems(h);
  if (problems.length > 0) throw new ApiError(400, 'Validation failed, check below errors for detail.', problems);
  return h;
}

export function eventRouter(store: MetadataStore, limits: DefinitionLimits = DEFAULT_DEFINITION_LIMITS): Router {
  const r = Router();

  r.post('/', async (req, res) => {
    const h = parseHandler(req.body);
    checkDefinitionSize('EventHandler', h.name, h, limits);
    if (await store.getEventHandler(h.name)) throw conflict(`EventHandler with name ${h.name} already exists!`);
    checkDefinitionCount('EventHandler', (await store.listEventHandlers()).length, limits);
    await store.putEventHandler(h);
    res.status(200).end();
  });

  r.put('/', async (req, res) => {
    const h = parseHandler(req.body);
    checkDefinitionSize('EventHandler', h.name, h, limits);
    if (!(await store.getEventHandler(h.name))) throw notFound(`EventHandler with name ${h.name} not found!`);
    await store.putEventHandler(h);
    res.status(200).end();
  });

  r.get('/', async (_req, res) => {
    res.json(await store.listEventHandlers());
  });

  // Registered before `/:event`: these two names are not event names.
  r.get('/execution', async (_req, res) => {
    res.json(await store.listEventExecutions());
  });

  r.get('/execution/:name', async (req, res) => {
    res.json(await store.listEventExecutions(req.params.name));
  });

  r.delete('/:name', async (req, res) => {
    if (!(await store.deleteEventHandler(req.params.name))) throw notFound(`EventHandler with name ${req.params.name} not found!`);
    res.status(200).end();
  });

  // `/:name` as DELETE spells it (one template for the document), read here as the event.
  r.get('/:name', async (req, res) => {
    const activeOnly = boolParam(req, 'activeOnly', true);
    res.json((await store.listEventHandlers()).filter((h) => h.event === req.params.name && (!activeOnly || h.active)));
  });

  return r;
}
