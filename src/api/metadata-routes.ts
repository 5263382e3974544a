import { z } from 'zod';
import { TaskDefSchema, WorkflowDefSchema, type TaskDef, type WorkflowDef } from '../model/definitions';
import type { MetadataService } from '../services/metadata-service';
import { boolParam, intParam } from './params';
import type { RouteTable } from './route-table';
import { jsonBody } from './request-body';
import { Errors } from '../model/named-errors';

// /api/metadata: workflow and task definitions, under both the interface's and Conductor's paths.

type DefSummary = { name: string; version: number; createTime: number; updateTime: number };
const defSummary = (d: WorkflowDef): DefSummary => ({ name: d.name, version: d.version, createTime: d.createTime, updateTime: d.updateTime });

const WORKFLOW_DEF = jsonBody(WorkflowDefSchema, 'workflowDef');
const WORKFLOW_DEFS = jsonBody(z.array(WorkflowDefSchema).min(1, 'WorkflowDef list cannot be empty'), 'workflowDefs');
const TASK_DEF = jsonBody(TaskDefSchema, 'taskDefinition');
const TASK_DEFS = jsonBody(z.array(TaskDefSchema).min(1, 'TaskDef list cannot be empty'), 'taskDefinitions');

/** Declares the routes under `t` (mounted at /api/metadata). */
export function metadataRoutes(t: RouteTable, deps: { metadata: MetadataService }): void {
  const r = t;
  const now = () => Date.now();

  const registerWorkflow = async (def: WorkflowDef, overwrite: boolean): Promise<void> => {
    const existing = await deps.metadata.store.getWorkflowDef(def.name, def.version);
    if (existing && !overwrite) throw Errors.WORKFLOW_DEF_EXISTS(def.name, def.version);
    await deps.metadata.putWorkflowDef({ ...def, createTime: existing?.createTime || now(), updateTime: existing ? now() : 0 });
  };

  for (const base of ['/workflowdef', '/workflow']) {
    r.get(base, { permission: 'definitions:read', summary: 'All workflow definitions (every version)', res: { list: 'WorkflowDef' } }, async (_req, res) => {
      res.json(await deps.metadata.store.listWorkflowDefs());
    });
    r.post(
      base,
      {
        permission: 'definitions:write',
        summary: 'Register a workflow definition (409 when name and version exist, unless overwrite)',
        query: { overwrite: 'boolean' },
        body: WORKFLOW_DEF,
        res: 'empty',
      },
      async (req, res) => {
        await registerWorkflow(req.body, boolParam(req, 'overwrite', false));
        res.status(200).end();
      },
    );
    r.post(
      `${base}/validate`,
      { permission: 'definitions:read', summary: 'Validate a workflow definition', body: WORKFLOW_DEF, res: 'empty' },
      async (_req, res) => {
        res.status(200).end();
      },
    );
    r.put(
      base,
      {
        permission: 'definitions:write',
        summary: 'Create or update workflow definitions',
        body: WORKFLOW_DEFS,
        res: 'BulkResponse',
      },
      async (req, res) => {
        const defs = req.body;
        for (const def of defs) await registerWorkflow(def, true);
        res.json({ bulkErrorResults: {}, bulkSuccessfulResults: defs.map((d) => d.name) });
      },
    );
    r.get(
      `${base}/names-and-versions`,
      {
        permission: 'definitions:read',
        summary: 'Versions of every workflow definition by name',
        res: {
          inline: z.record(z.string(), z.array(z.object({ name: z.string(), version: z.number().int(), createTime: z.number(), updateTime: z.number() }))),
        },
      },
      async (_req, res) => {
        const out: Record<string, DefSummary[]> = {};
        for (const d of await deps.metadata.store.listWorkflowDefs()) (out[d.name] ??= []).push(defSummary(d));
        res.json(out);
      },
    );
    r.get(
      `${base}/{name}/versions`,
      {
        permission: 'definitions:read',
        summary: 'Versions of one workflow definition',
        res: { inline: z.array(z.object({ name: z.string(), version: z.number().int(), createTime: z.number(), updateTime: z.number() })) },
      },
      async (req, res) => {
        const defs = (await deps.metadata.store.listWorkflowDefs()).filter((d) => d.name === req.params.name);
        res.json(defs.sort((a, b) => a.version - b.version).map(defSummary));
      },
    );
    r.get(
      `${base}/latest-versions`,
      { permission: 'definitions:read', summary: 'The latest version of every workflow definition', res: { list: 'WorkflowDef' } },
      async (_req, res) => {
        const latest = new Map<string, WorkflowDef>();
        for (const d of await deps.metadata.store.listWorkflowDefs()) if ((latest.get(d.name)?.version ?? -1) < d.version) latest.set(d.name, d);
        res.json([...latest.values()]);
      },
    );
    r.get(
      `${base}/names`,
      { permission: 'definitions:read', summary: 'Workflow definition names', res: { inline: z.array(z.string()) } },
      async (_req, res) => {
        res.json([...new Set((await deps.metadata.store.listWorkflowDefs()).map((d) => d.name))]);
      },
    );
    r.get(
      `${base}/{name}`,
      { permission: 'definitions:read', summary: 'A workflow definition (latest version unless given)', query: { version: 'integer' }, res: 'WorkflowDef' },
      async (req, res) => {
        const version = intParam(req, 'version', undefined);
        const def = await deps.metadata.store.getWorkflowDef(req.params.name, version);
        if (!def) throw Errors.WORKFLOW_DEF_NOT_FOUND(req.params.name, version);
        res.json(def);
      },
    );
    r.delete(
      `${base}/{name}/{version}`,
      {
        permission: 'definitions:write',
        summary: 'Delete a workflow definition version',
        pathParams: { version: { schema: { type: 'integer' } } },
        res: 'empty',
      },
      async (req, res) => {
        const version = Number(req.params.version);
        if (!Number.isInteger(version)) throw Errors.VERSION_INVALID(req.params.version);
        if (!(await deps.metadata.deleteWorkflowDef(req.params.name, version))) throw Errors.WORKFLOW_DEF_TO_DELETE_NOT_FOUND(req.params.name, version);
        res.status(200).end();
      },
    );
  }

  const upsertTaskDef = async (def: TaskDef): Promise<void> => {
    const existing = await deps.metadata.store.getTaskDef(def.name);
    await deps.metadata.putTaskDef({ ...def, createTime: existing?.createTime || now(), updateTime: existing ? now() : 0 });
  };

  for (const base of ['/taskdef', '/taskdefs']) {
    r.get(base, { permission: 'definitions:read', summary: 'All task definitions', res: { list: 'TaskDef' } }, async (_req, res) => {
      res.json(await deps.metadata.store.listTaskDefs());
    });
    r.post(base, { permission: 'definitions:write', summary: 'Create or update task definitions', body: TASK_DEFS, res: 'empty' }, async (req, res) => {
      for (const d of req.body) await upsertTaskDef(d);
      res.status(200).end();
    });
    // Conductor answers 404 for an unknown name here; SDK workers register with PUT, so Baton upserts.
    r.put(base, { permission: 'definitions:write', summary: 'Create or update one task definition', body: TASK_DEF, res: 'empty' }, async (req, res) => {
      await upsertTaskDef(req.body);
      res.status(200).end();
    });
    r.get(`${base}/{name}`, { permission: 'definitions:read', summary: 'A task definition', res: 'TaskDef' }, async (req, res) => {
      const def = await deps.metadata.store.getTaskDef(req.params.name);
      if (!def) throw Errors.TASK_DEF_NOT_FOUND(req.params.name);
      res.json(def);
    });
    r.delete(`${base}/{name}`, { permission: 'definitions:write', summary: 'Delete a task definition', res: 'empty' }, async (req, res) => {
      if (!(await deps.metadata.deleteTaskDef(req.params.name))) throw Errors.TASK_DEF_TO_DELETE_NOT_FOUND(req.params.name);
      res.status(200).end();
    });
  }
}
