import express, { type Request, type RequestHandler } from 'express';
import { verifyLink, type LinkOperation, type LinkVerdict } from '../objects/link-signature';
import { objectKeyProblem } from '../objects/object-keys';
import type { ServedObjectLinks } from '../objects/open-object-store';
import type { BatonError } from '../model/errors';
import { Errors } from '../model/named-errors';
import { strParam } from './params';
import type { RouteTable } from './route-table';

// GET and PUT /api/objects/{key}: the signed links of the directory object store
// (src/objects/directory-object-store.ts). The link is the credential: no bearer token, a valid
// signature for the method's operation and key, before its expiry. The key is one path segment ('/' as %2F).

export const OBJECTS_PATH = '/api/objects';

export interface ObjectRouteDeps {
  /** Absent when the object store is a bucket (its links are presigned URLs to the bucket). */
  objectLinks?: ServedObjectLinks;
  now?: () => number;
}

const operationOf = (method: string): LinkOperation => (method === 'PUT' ? 'WRITE' : 'READ');

/** The key a request names: the one segment after /api/objects/, decoded; undefined when there is none. */
function keyOfPath(path: string): string | undefined {
  const m = /^\/([^/]+)\/?$/.exec(path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

/** The verdict on a request's link (pure apart from reading the request). */
function verdictOf(linkKey: Buffer, req: Request, key: string, nowMs: number): LinkVerdict {
  const expires = strParam(req, 'expires');
  return verifyLink(
    linkKey,
    {
      operation: operationOf(req.method),
      key,
      expires: expires && /^\d{1,15}$/.test(expires) ? Number(expires) : NaN,
      signature: strParam(req, 'signature') ?? '',
    },
    nowMs,
  );
}

function refusal(v: LinkVerdict): BatonError | undefined {
  if (v.ok) return undefined;
  return v.reason === 'expired' ? Errors.OBJECT_LINK_EXPIRED() : Errors.OBJECT_LINK_INVALID();
}

function linksOf(d: ObjectRouteDeps): ServedObjectLinks {
  if (!d.objectLinks) throw Errors.OBJECTS_NOT_SERVED();
  return d.objectLinks;
}

/** Reads a PUT's body raw (at most `limitBytes`, else 413) only once its link checks out; the route refuses the others unread (mounted at /api/objects). */
export function objectBody(d: ObjectRouteDeps, limitBytes: number): RequestHandler {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return (req, res, next) => {
    if (req.method !== 'PUT') return next();
    const key = keyOfPath(req.path);
    if (key === undefined || !d.objectLinks) return next();
    return verdictOf(d.objectLinks.linkKey(), req, key, (d.now ?? Date.now)()).ok ? raw(req, res, next) : next();
  };
}

export function objectRoutes(r: RouteTable, d: ObjectRouteDeps): void {
  const now = d.now ?? Date.now;
  const checked = (req: Request<Record<string, string>>): { links: ServedObjectLinks; key: string } => {
    const links = linksOf(d);
    const key = req.params.key!;
    const refused = refusal(verdictOf(links.linkKey(), req, key, now()));
    if (refused) throw refused;
    const problem = objectKeyProblem(key);
    if (problem) throw Errors.OBJECT_KEY_INVALID(problem);
    return { links, key };
  };
  const query = { expires: 'integer', signature: 'string' } as const;
  r.get(
    '/{key}',
    {
      permission: 'public',
      summary: 'An object of the directory object store, through a signed link (the link is the credential); 403 when expired or not signed for it',
      pathParams: { key: { description: "The object's key, '/' encoded as %2F" } },
      query,
      res: 'text',
    },
    async (req, res) => {
      const { links, key } = checked(req);
      const body = await links.store.get(key);
      if (!body) throw Errors.OBJECT_NOT_FOUND(key);
      res.type(key.endsWith('.json') ? 'application/json' : 'application/octet-stream').send(body);
    },
  );
  r.put(
    '/{key}',
    {
      permission: 'public',
      summary: 'Writes an object of the directory object store through a signed link (the body as sent, whole); 403 when expired or not signed for it',
      pathParams: { key: { description: "The object's key, '/' encoded as %2F" } },
      query,
      body: 'text',
      bodyOptional: true,
      res: 'empty',
    },
    async (req, res) => {
      const { links, key } = checked(req);
      await links.store.put(key, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      res.status(200).end();
    },
  );
}
