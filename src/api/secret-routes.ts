import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { TagListSchema, TagSchema, type Tag } from '../model/tags';
import { Errors } from '../model/named-errors';
import type { SecretService } from '../services/secret-service';
import type { RouteTable } from './route-table';
import { jsonBody, type JsonBody } from './request-body';

// /api/secrets: the calls of Orkes' SecretResource that the SDKs' SecretClient makes. A value is
// read as plain text. It is written as the body: the JS and Java clients send a JSON string
// (`"value"`), the Python SDK the bare text under Content-Type application/json, curl users either;
// so a body that is a JSON string is that string, and any other body is the value as sent.

/** A list of tags, or one tag. */
export const TAGS_BODY: JsonBody<Tag[]> = jsonBody(z.union([TagListSchema, TagSchema.transform((t) => [t])]), 'tags');

/** The value a PUT body carries (see above). */
export function secretValueOf(body: string): string {
  const text = body.trim();
  if (text.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v === 'string') return v;
    } catch {
      // not JSON: the value as sent
    }
  }
  return body;
}

/** Reads PUT /api/secrets/{key} bodies as text, whatever their type, ahead of the JSON parser (mounted at /api/secrets). */
export function secretValueBody(limitBytes: number): RequestHandler {
  const text = express.text({ type: () => true, limit: limitBytes });
  return (req, res, next) => (req.method === 'PUT' && /^\/[^/]+\/?$/.test(req.path) ? text(req, res, next) : next());
}

export interface SecretRouteDeps {
  secrets?: SecretService;
}

/** Declares the routes under `r` (mounted at /api). */
export function secretRoutes(r: RouteTable, deps: SecretRouteDeps): void {
  const secrets = (): SecretService => {
    if (!deps.secrets) throw Errors.SECRETS_UNAVAILABLE();
    return deps.secrets;
  };
  const names = { inline: z.array(z.string()) } as const;

  r.get(
    '/secrets',
    { permission: 'definitions:read', summary: 'Names of the secrets the caller can use (every secret: no per-secret grants)', res: names },
    async (_req, res) => {
      res.json(await secrets().names());
    },
  );
  r.post('/secrets', { permission: 'definitions:read', summary: 'Names of every secret', res: names }, async (_req, res) => {
    res.json(await secrets().names());
  });
  r.get(
    '/secrets-v2',
    {
      permission: 'definitions:read',
      summary: 'Secrets with their tags (no values)',
      res: { inline: z.array(z.object({ name: z.string(), tags: TagListSchema })) },
    },
    async (_req, res) => {
      const s = secrets();
      res.json(await Promise.all((await s.names()).map(async (name) => ({ name, tags: await s.tags(name).catch(() => []) }))));
    },
  );
  r.get('/secrets/{key}/exists', { permission: 'definitions:read', summary: 'Whether a secret exists', res: { inline: z.boolean() } }, async (req, res) => {
    res.json(await secrets().exists(req.params.key));
  });
  r.get('/secrets/{key}/tags', { permission: 'definitions:read', summary: "A secret's tags", res: { inline: TagListSchema } }, async (req, res) => {
    res.json(await secrets().tags(req.params.key));
  });
  r.put('/secrets/{key}/tags', { permission: 'definitions:write', summary: 'Add tags to a secret', body: TAGS_BODY, res: 'empty' }, async (req, res) => {
    await secrets().addTags(req.params.key, req.body);
    res.status(200).end();
  });
  r.delete(
    '/secrets/{key}/tags',
    { permission: 'definitions:write', summary: 'Remove tags from a secret', body: TAGS_BODY, res: 'empty' },
    async (req, res) => {
      await secrets().removeTags(req.params.key, req.body);
      res.status(200).end();
    },
  );
  // As text: the JS SDK reads a text/plain answer as is, the Java client takes the body as the string, the Python SDK falls back to the text.
  r.get(
    '/secrets/{key}',
    { permission: 'admin', summary: 'A secret value, as plain text (admins only when access control is on; 404 when missing)', res: 'text' },
    async (req, res) => {
      const value = await secrets().get(req.params.key);
      res.type('text/plain').send(value);
    },
  );
  // Documented as text: the Python SDK sends bare text under application/json, which is not JSON, so no JSON schema describes what is accepted.
  r.put(
    '/secrets/{key}',
    {
      permission: 'definitions:write',
      summary: 'Create or replace a secret: the body is the value as text (a JSON string body, as the JS and Java clients send, is that string)',
      body: 'text',
      res: 'empty',
    },
    async (req, res) => {
      await secrets().put(req.params.key, typeof req.body === 'string' ? secretValueOf(req.body) : req.body);
      res.status(200).end();
    },
  );
  r.delete('/secrets/{key}', { permission: 'definitions:write', summary: 'Delete a secret (404 when missing)', res: 'empty' }, async (req, res) => {
    await secrets().delete(req.params.key);
    res.status(200).end();
  });
}
