import { addTags, removeTags, TagListSchema, type Tag } from '../model/tags';
import type { MetadataService } from '../services/metadata-service';
import type { RouteTable } from './route-table';
import { TAGS_BODY } from './secret-routes';
import { Errors } from '../model/named-errors';

// Tags on workflow definitions, task definitions and event handlers (Orkes' Tags and EventResource
// calls as the SDK's MetadataClient and EventClient send them). Tags live in the definition's own
// `tags` field, so both metadata stores keep them with it and registration may set them too. A
// workflow's tags are its name's: a change applies to every version.

type Tagged = { tags?: Tag[] | null };
const tagsField = (x: Tagged | undefined): Tag[] => x?.tags ?? [];
const dedupe = (tags: Tag[]): Tag[] => addTags([], tags);

/** Declares the definition tag routes under `r` (mounted at /api/metadata; before the definition routes, whose `{name}/{version}` would take these paths). */
export function definitionTagRoutes(r: RouteTable, deps: { metadata: MetadataService }): void {
  const store = () => deps.metadata.store;
  const list = { inline: TagListSchema } as const;

  const workflowVersions = async (name: string) => {
    const defs = (await store().listWorkflowDefs()).filter((d) => d.name === name);
    if (defs.length === 0) throw Errors.WORKFLOW_NAME_NOT_FOUND(name);
    return defs.sort((a, b) => a.version - b.version);
  };
  const changeWorkflowTags = async (name: string, change: (tags: Tag[]) => Tag[]): Promise<void> => {
    for (const def of await workflowVersions(name)) await deps.metadata.putWorkflowDef({ ...def, tags: change(tagsField(def)) });
  };
  const taskDef = async (name: string) => {
    const def = await store().getTaskDef(name);
    if (!def) throw Errors.TASK_DEF_NOT_FOUND(name);
    return def;
  };
  const changeTaskTags = async (name: string, change: (tags: Tag[]) => Tag[]): Promise<void> => {
    const def = await taskDef(name);
    await deps.metadata.putTaskDef({ ...def, tags: change(tagsField(def)) });
  };

  r.get(
    '/tags',
    { permission: 'definitions:read', summary: 'Every tag on workflow definitions, task definitions and event handlers', res: list },
    async (_req, res) => {
      const all = [...(await store().listWorkflowDefs()), ...(await store().listTaskDefs()), ...(await store().listEventHandlers())].flatMap((d) =>
        tagsField(d as Tagged),
      );
      res.json(dedupe(all));
    },
  );

  r.get('/workflow/{name}/tags', { permission: 'definitions:read', summary: "A workflow definition's tags", res: list }, async (req, res) => {
    const versions = await workflowVersions(req.params.name);
    res.json(tagsField(versions[versions.length - 1]));
  });
  r.put(
    '/workflow/{name}/tags',
    { permission: 'definitions:write', summary: "Replace a workflow definition's tags", body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = dedupe(req.body);
      await changeWorkflowTags(req.params.name, () => tags);
      res.status(200).end();
    },
  );
  r.post(
    '/workflow/{name}/tags',
    { permission: 'definitions:write', summary: 'Add a tag to a workflow definition', body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = req.body;
      await changeWorkflowTags(req.params.name, (old) => addTags(old, tags));
      res.status(200).end();
    },
  );
  r.delete(
    '/workflow/{name}/tags',
    { permission: 'definitions:write', summary: 'Remove a tag from a workflow definition', body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = req.body;
      await changeWorkflowTags(req.params.name, (old) => removeTags(old, tags));
      res.status(200).end();
    },
  );

  r.get('/task/{taskName}/tags', { permission: 'definitions:read', summary: "A task definition's tags", res: list }, async (req, res) => {
    res.json(tagsField(await taskDef(req.params.taskName)));
  });
  r.put(
    '/task/{taskName}/tags',
    { permission: 'definitions:write', summary: "Replace a task definition's tags", body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = dedupe(req.body);
      await changeTaskTags(req.params.taskName, () => tags);
      res.status(200).end();
    },
  );
  r.post(
    '/task/{taskName}/tags',
    { permission: 'definitions:write', summary: 'Add a tag to a task definition', body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = req.body;
      await changeTaskTags(req.params.taskName, (old) => addTags(old, tags));
      res.status(200).end();
    },
  );
  r.delete(
    '/task/{taskName}/tags',
    { permission: 'definitions:write', summary: 'Remove a tag from a task definition', body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = req.body;
      await changeTaskTags(req.params.taskName, (old) => removeTags(old, tags));
      res.status(200).end();
    },
  );
}

/** Declares the event handler tag routes under `r` (mounted at /api/event). */
export function eventHandlerTagRoutes(r: RouteTable, deps: { metadata: MetadataService }): void {
  const store = () => deps.metadata.store;
  const handler = async (name: string) => {
    const h = await store().getEventHandler(name);
    if (!h) throw Errors.EVENT_HANDLER_NOT_FOUND(name);
    return h;
  };
  const change = async (name: string, f: (tags: Tag[]) => Tag[]): Promise<void> => {
    const h = await handler(name);
    await store().putEventHandler({ ...h, tags: f(tagsField(h as Tagged)) });
  };
  r.get('/{name}/tags', { permission: 'definitions:read', summary: "An event handler's tags", res: { inline: TagListSchema } }, async (req, res) => {
    res.json(tagsField((await handler(req.params.name)) as Tagged));
  });
  r.put('/{name}/tags', { permission: 'definitions:write', summary: 'Add tags to an event handler', body: TAGS_BODY, res: 'empty' }, async (req, res) => {
    const tags = req.body;
    await change(req.params.name, (old) => addTags(old, tags));
    res.status(200).end();
  });
  r.delete(
    '/{name}/tags',
    { permission: 'definitions:write', summary: 'Remove tags from an event handler', body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      const tags = req.body;
      await change(req.params.name, (old) => removeTags(old, tags));
      res.status(200).end();
    },
  );
}
