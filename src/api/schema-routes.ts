import { z } from 'zod';
import { SchemaDefSchema, type SchemaDef } from '../model/schemas';
import { checkRecordCount, DEFAULT_RECORD_CAPS } from '../services/definition-limits';
import { Errors } from '../model/named-errors';
import { schemaRefusal } from '../services/json-schema-check';
import type { SchemaStore } from '../store/ports';
import { boolParam, checkName } from './params';
import { jsonBody } from './request-body';
import { type RouteTable } from './route-table';

// /api/schema: JSON schemas by name and version (Orkes' SchemaResource, the JS SDK's SchemaClient).
// Workflow and task definitions name them as inputSchema/outputSchema (src/services/schema-enforcer.ts).

const versionParam = { pathParams: { version: { schema: { type: 'integer', minimum: 1 } } } } as const;

function versionOf(text: string): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v < 1 || v > 2_147_483_647) throw Errors.SCHEMA_VERSION_INVALID(text);
  return v;
}

/** A JSON schema needs data whose patterns RE2 can run; AVRO and PROTOBUF are stored as given. */
const SchemaRequestSchema = SchemaDefSchema.superRefine((d, ctx) => {
  if (d.type !== 'JSON') return;
  if (!d.data) return void ctx.addIssue({ code: 'custom', path: ['data'], message: 'a JSON schema needs data' });
  const p = schemaRefusal(d.data);
  if (p) ctx.addIssue({ code: 'custom', path: ['data'], message: `not a usable JSON schema: ${p}` });
});

/** One schema or a list of them, read as a list: a single one's errors are indexed as the list's first. */
const SCHEMAS = jsonBody(
  z.preprocess((b) => (Array.isArray(b) ? b : [b]), z.array(SchemaRequestSchema)),
  'schemas',
);

/** Declares the routes under `r` (mounted at /api/schema); `store` is asked per request; at most `maxSchemas` versions in all (BATON_MAX_SCHEMAS). */
export function schemaRoutes(r: RouteTable, store: () => SchemaStore | undefined, maxSchemas: number = DEFAULT_RECORD_CAPS.schemas): void {
  const schemas = (): SchemaStore => {
    const s = store();
    if (!s) throw Errors.SCHEMAS_UNAVAILABLE();
    return s;
  };
  const found = (s: SchemaDef | undefined, what: string): SchemaDef => {
    if (!s) throw Errors.SCHEMA_NOT_FOUND(what);
    return s;
  };

  r.post(
    '/',
    {
      permission: 'definitions:write',
      summary: 'Save schemas; with newVersion each becomes the next version of its name, otherwise its version (1 when absent) is written',
      query: { newVersion: 'boolean' },
      body: SCHEMAS,
      res: 'empty',
    },
    async (req, res) => {
      const list = req.body;
      const newVersion = boolParam(req, 'newVersion', false);
      const now = Date.now();
      const writes: Array<{ def: SchemaDef; existing: SchemaDef | undefined }> = [];
      // With newVersion, a name given twice in one request gets two versions.
      const assigned = new Map<string, number>();
      for (const d of list) {
        const version = newVersion ? (assigned.get(d.name) ?? (await schemas().get(d.name))?.version ?? 0) + 1 : (d.version ?? 1);
        if (newVersion) assigned.set(d.name, version);
        const existing = newVersion ? undefined : await schemas().get(d.name, version);
        writes.push({ def: { ...d, version }, existing });
      }
      // Before any write: a request over the cap changes nothing. Two new versions of one name in a request count once each.
      const adding = new Set(writes.filter((w) => !w.existing).map((w) => `${w.def.name}\u0000${w.def.version}`)).size;
      if (adding > 0) checkRecordCount('schemas', await schemas().count(maxSchemas), adding, maxSchemas);
      for (const { def, existing } of writes) await schemas().put({ ...def, createTime: existing?.createTime ?? now, updateTime: now });
      res.status(200).end();
    },
  );

  r.get('/', { permission: 'definitions:read', summary: 'Every version of every schema', res: { inline: z.array(SchemaDefSchema) } }, async (_req, res) => {
    res.json(await schemas().list());
  });

  r.get('/{name}', { permission: 'definitions:read', summary: 'The latest version of a schema', res: { inline: SchemaDefSchema } }, async (req, res) => {
    checkName('name', req.params.name);
    res.json(found(await schemas().get(req.params.name), req.params.name));
  });

  r.delete('/{name}', { permission: 'definitions:write', summary: 'Delete every version of a schema', res: 'empty' }, async (req, res) => {
    checkName('name', req.params.name);
    if (!(await schemas().delete(req.params.name))) throw Errors.SCHEMA_NOT_FOUND(req.params.name);
    res.status(200).end();
  });

  r.get(
    '/{name}/{version}',
    { permission: 'definitions:read', summary: 'One version of a schema', ...versionParam, res: { inline: SchemaDefSchema } },
    async (req, res) => {
      const version = versionOf(req.params.version);
      res.json(found(await schemas().get(req.params.name, version), `${req.params.name}:${version}`));
    },
  );

  r.delete(
    '/{name}/{version}',
    { permission: 'definitions:write', summary: 'Delete one version of a schema', ...versionParam, res: 'empty' },
    async (req, res) => {
      const version = versionOf(req.params.version);
      if (!(await schemas().delete(req.params.name, version))) throw Errors.SCHEMA_NOT_FOUND(`${req.params.name}:${version}`);
      res.status(200).end();
    },
  );
}
