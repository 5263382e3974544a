import { z } from 'zod';
import { SaveScheduleRequestSchema, ScheduleExecutionSearchResultSchema, ScheduleTagSchema, ScheduleViewSchema } from '../model/schedules';
import { Errors } from '../model/named-errors';
import type { ScheduleService } from '../services/schedule-service';
import { parseExecutionQuery } from '../services/schedule-service';
import { strParam } from './params';
import { jsonBody } from './request-body';
import { intQuery, requiredText, type RouteTable } from './route-table';

// /api/scheduler: workflow schedules as Orkes Conductor's SchedulerResource serves them (the JS SDK's
// SchedulerClient). Per-schedule pause and resume answer both PUT (Conductor OSS) and GET (Orkes).

// Conductor's SchedulerResource answers at most this many next run times.
const MAX_NEXT_SCHEDULES = 5;
/** nextFewSchedules: a limit above the cap is clamped to it (as Conductor does); 0 times mean unset. */
const NEXT_FEW = {
  scheduleStartTime: intQuery({ min: 0, fallback: 0 }),
  scheduleEndTime: intQuery({ min: 0, fallback: 0 }),
  limit: intQuery({ min: 1, fallback: MAX_NEXT_SCHEDULES }),
};
/** A page of a schedule's executions. */
const EXECUTION_PAGE = { start: intQuery({ min: 0, fallback: 0 }), size: intQuery({ min: 1, max: 1000, fallback: 100 }) };

const TagsSchema = z.array(ScheduleTagSchema);

/** `key:value` tag filters of GET /schedules/tags (one parameter, comma-separated, or repeated). */
function tagFilters(raw: string | undefined): Array<{ key: string; value?: string }> {
  const parts = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw Errors.SCHEDULE_TAG_REQUIRED();
  return parts.map((p) => {
    const i = p.indexOf(':');
    return i < 0 ? { key: p } : { key: p.slice(0, i), value: p.slice(i + 1) };
  });
}

/** Sort of the executions search: `scheduledTime` (or `startTime`/`executionTime`) with `:ASC` or `:DESC`; newest first by default. */
function ascendingOf(sort: string | undefined): boolean {
  if (!sort) return false;
  const m = /^(\w+)(?::(ASC|DESC))?$/i.exec(sort.trim());
  if (!m || !['scheduledTime', 'startTime', 'executionTime'].includes(m[1]!)) throw Errors.SCHEDULE_SORT_INVALID(sort);
  return (m[2] ?? 'ASC').toUpperCase() === 'ASC';
}

/** Declares the routes under `r` (mounted at /api/scheduler). */
export function schedulerRoutes(r: RouteTable, deps: { schedules?: ScheduleService }): void {
  const svc = (): ScheduleService => {
    if (!deps.schedules) throw Errors.SCHEDULER_UNAVAILABLE();
    return deps.schedules;
  };
  const nameParam = { name: { description: 'the schedule name' } };

  r.post(
    '/schedules',
    { permission: 'executions:start', summary: 'Create or update a schedule', body: jsonBody(SaveScheduleRequestSchema, 'saveScheduleRequest'), res: 'empty' },
    async (req, res) => {
      await svc().save(req.body);
      res.status(200).end();
    },
  );

  r.get(
    '/schedules',
    {
      permission: 'definitions:read',
      summary: 'All schedules, optionally of one workflow',
      query: { workflowName: 'string' },
      res: { inline: z.array(ScheduleViewSchema) },
    },
    async (req, res) => {
      res.json(await svc().list(strParam(req, 'workflowName') || undefined));
    },
  );

  // Before `/schedules/{name}`: `tags` is not a schedule name here.
  r.get(
    '/schedules/tags',
    {
      permission: 'definitions:read',
      summary: 'Schedules carrying any of the tags (key:value)',
      query: { tag: requiredText },
      res: { inline: z.array(ScheduleViewSchema) },
    },
    async (req, res) => {
      res.json(await svc().byTag(tagFilters(strParam(req, 'tag'))));
    },
  );

  r.get(
    '/schedules/{name}',
    { permission: 'definitions:read', summary: 'A schedule', pathParams: nameParam, res: { inline: ScheduleViewSchema } },
    async (req, res) => {
      res.json(await svc().get(req.params.name!));
    },
  );

  r.delete(
    '/schedules/{name}',
    { permission: 'executions:manage', summary: 'Delete a schedule (its executions stay until they expire)', pathParams: nameParam, res: 'empty' },
    async (req, res) => {
      await svc().delete(req.params.name!);
      res.status(200).end();
    },
  );

  for (const method of ['get', 'put'] as const) {
    r[method](
      '/schedules/{name}/pause',
      { permission: 'executions:manage', summary: 'Pause a schedule', pathParams: nameParam, query: { reason: 'string' }, res: 'empty' },
      async (req, res) => {
        await svc().pause(req.params.name!, strParam(req, 'reason') || undefined);
        res.status(200).end();
      },
    );
    r[method](
      '/schedules/{name}/resume',
      { permission: 'executions:manage', summary: 'Resume a schedule (slots missed while paused do not fire)', pathParams: nameParam, res: 'empty' },
      async (req, res) => {
        await svc().resume(req.params.name!);
        res.status(200).end();
      },
    );
    r[method]('/admin/pause', { permission: 'admin', summary: 'Pause every schedule (their slots pass without firing)', res: 'empty' }, async (_req, res) => {
      await svc().pauseAll();
      res.status(200).end();
    });
    r[method]('/admin/resume', { permission: 'admin', summary: 'Resume every schedule', res: 'empty' }, async (_req, res) => {
      await svc().resumeAll();
      res.status(200).end();
    });
  }

  r.get('/admin/requeue', { permission: 'admin', summary: 'Re-arm the reminder of every schedule that is not paused', res: 'empty' }, async (_req, res) => {
    await svc().syncAll();
    res.status(200).end();
  });

  r.get(
    '/nextFewSchedules',
    {
      permission: 'definitions:read',
      summary: 'The next run times of a cron expression (default 5; a larger limit answers 5, as Conductor does)',
      query: { cronExpression: requiredText, zoneId: 'string', ...NEXT_FEW },
      res: { inline: z.array(z.number()) },
    },
    async (req, res) => {
      const cron = strParam(req, 'cronExpression');
      if (!cron) throw Errors.CRON_EXPRESSION_REQUIRED();
      // Conductor caps the list at 5 rather than refusing a larger limit.
      const limit = Math.min(NEXT_FEW.limit.read(req, 'limit'), MAX_NEXT_SCHEDULES);
      res.json(
        svc().nextFew(
          cron,
          strParam(req, 'zoneId') || undefined,
          NEXT_FEW.scheduleStartTime.read(req, 'scheduleStartTime') || undefined,
          NEXT_FEW.scheduleEndTime.read(req, 'scheduleEndTime') || undefined,
          limit,
        ),
      );
    },
  );

  r.get(
    '/search/executions',
    {
      permission: 'executions:read',
      summary: 'Executions of schedules, newest first; query: scheduleName=, workflowName=, state= joined by AND',
      query: { ...EXECUTION_PAGE, sort: 'string', freeText: 'string', query: 'string' },
      res: { inline: ScheduleExecutionSearchResultSchema },
    },
    async (req, res) => {
      const freeText = strParam(req, 'freeText')?.trim();
      res.json(
        await svc().search({
          ...parseExecutionQuery(strParam(req, 'query')),
          ...(freeText && freeText !== '*' ? { text: freeText } : {}),
          ascending: ascendingOf(strParam(req, 'sort')),
          start: EXECUTION_PAGE.start.read(req, 'start'),
          size: EXECUTION_PAGE.size.read(req, 'size'),
        }),
      );
    },
  );

  r.get(
    '/schedules/{name}/tags',
    { permission: 'definitions:read', summary: 'The tags of a schedule', pathParams: nameParam, res: { inline: TagsSchema } },
    async (req, res) => {
      res.json(await svc().tags(req.params.name!));
    },
  );
  r.put(
    '/schedules/{name}/tags',
    { permission: 'executions:start', summary: 'Set the tags of a schedule', pathParams: nameParam, body: jsonBody(TagsSchema, 'tags'), res: 'empty' },
    async (req, res) => {
      await svc().setTags(req.params.name!, req.body);
      res.status(200).end();
    },
  );
  r.delete(
    '/schedules/{name}/tags',
    { permission: 'executions:manage', summary: 'Remove tags from a schedule', pathParams: nameParam, body: jsonBody(TagsSchema, 'tags'), res: 'empty' },
    async (req, res) => {
      await svc().deleteTags(req.params.name!, req.body);
      res.status(200).end();
    },
  );
}
