import type { IncomingMessage } from 'node:http';
import { Router } from 'express';
import { z } from 'zod';
import { ApplicationRequestSchema, TagSchema, TokenRequestSchema } from '../model/applications';
import type { AccessDirectory } from '../auth/access-directory';
import type { ApplicationService } from '../auth/application-service';
import { principalOf } from '../auth/request-gate';
import type { AccessTokens } from '../auth/tokens';
import { ApiError, notFound } from '../services/errors';
import { parseBody } from './params';

// POST /api/token and the Orkes application API (/api/applications), as the official SDKs call them
// (TokenResource, ApplicationClient). Who may call which is in src/auth/route-permissions.ts.

export interface AuthRoutesDeps {
  applications: ApplicationService;
  /** Absent while auth is off: /api/token then answers 404, which the SDKs read as "this server has no auth". */
  issuer?: { directory: AccessDirectory; tokens: AccessTokens };
}

const TagsSchema = z.array(TagSchema).max(100);

/** Who to record as createdBy/updatedBy. */
const actor = (req: IncomingMessage): string => {
  const p = principalOf(req);
  return p ? `app:${p.applicationId}` : 'anonymous';
};

const authOff = (): ApiError => notFound('Authentication is off on this server (BATON_AUTH=off): no token is needed');

export function tokenRouter(d: AuthRoutesDeps): Router {
  const r = Router();

  r.post('/', async (req, res) => {
    if (!d.issuer) throw authOff();
    const { keyId, keySecret } = parseBody(TokenRequestSchema, req.body, 'generateTokenRequest');
    const principal = await d.issuer.directory.authenticate(keyId, keySecret);
    // No `error` code here: the SDKs refresh on INVALID_TOKEN, and refreshing is this very call.
    if (!principal) throw new ApiError(401, 'Invalid access key id or secret, or the key is disabled');
    res.json({ token: await d.issuer.tokens.issue(principal.keyId, principal.applicationId) });
  });

  r.get('/userInfo', (req, res) => {
    const p = principalOf(req);
    if (!d.issuer || !p) throw authOff();
    res.json({ id: `app:${p.applicationId}`, name: p.applicationName, applicationUser: true, roles: p.roles.map((name) => ({ name })), accessKeyId: p.keyId });
  });

  return r;
}

export function applicationRouter(d: AuthRoutesDeps): Router {
  const r = Router();
  const apps = d.applications;

  r.get('/', async (_req, res) => void res.json(await apps.list()));
  r.post('/', async (req, res) => {
    const { name } = parseBody(ApplicationRequestSchema, req.body, 'createOrUpdateApplicationRequest');
    res.json(await apps.create(name, actor(req)));
  });
  // Before /:id, which would take "key" as an application id.
  r.get('/key/:accessKeyId', async (req, res) => void res.json(await apps.byAccessKey(req.params.accessKeyId)));
  r.get('/:id', async (req, res) => void res.json(await apps.get(req.params.id)));
  r.put('/:id', async (req, res) => {
    const { name } = parseBody(ApplicationRequestSchema, req.body, 'createOrUpdateApplicationRequest');
    res.json(await apps.rename(req.params.id, name, actor(req)));
  });
  r.delete('/:id', async (req, res) => {
    await apps.delete(req.params.id);
    res.status(200).end();
  });

  r.get('/:id/accessKeys', async (req, res) => void res.json(await apps.keys(req.params.id)));
  r.post('/:id/accessKeys', async (req, res) => void res.json(await apps.createKey(req.params.id)));
  r.delete('/:applicationId/accessKeys/:keyId', async (req, res) => {
    await apps.deleteKey(req.params.applicationId, req.params.keyId);
    res.status(200).end();
  });
  r.post('/:applicationId/accessKeys/:keyId/status', async (req, res) => void res.json(await apps.toggleKey(req.params.applicationId, req.params.keyId)));

  // The SDKs add a role with POST; PUT is accepted too.
  r.post('/:applicationId/roles/:role', async (req, res) => void res.json(await apps.addRole(req.params.applicationId, req.params.role, actor(req))));
  r.put('/:applicationId/roles/:role', async (req, res) => void res.json(await apps.addRole(req.params.applicationId, req.params.role, actor(req))));
  r.delete('/:applicationId/roles/:role', async (req, res) => void res.json(await apps.removeRole(req.params.applicationId, req.params.role, actor(req))));

  r.get('/:id/tags', async (req, res) => void res.json(await apps.tags(req.params.id)));
  r.put('/:id/tags', async (req, res) => {
    await apps.addTags(req.params.id, parseBody(TagsSchema, req.body, 'tags'), actor(req));
    res.status(200).end();
  });
  r.delete('/:id/tags', async (req, res) => {
    await apps.removeTags(req.params.id, parseBody(TagsSchema, req.body, 'tags'), actor(req));
    res.status(200).end();
  });

  return r;
}
