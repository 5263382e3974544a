import { z } from 'zod';
import {
  AccessKeyInfoSchema,
  ApplicationRecordSchema,
  ApplicationRequestSchema,
  ROLES,
  TagSchema,
  TokenRequestSchema,
  type ApplicationRecord,
} from '../model/applications';
import { OrkesRoleSchema } from '../model/authorization';
import { type RouteTable } from './route-table';
import type { AccessDirectory } from '../auth/access-directory';
import type { ApplicationService } from '../auth/application-service';
import { applicationUserId, type AuthorizationService } from '../auth/authorization-service';
import { principalOf } from '../auth/request-gate';
import { RetryLater } from '../auth/retry-later';
import type { SignInGuard } from '../auth/sign-in-guard';
import type { AccessTokens } from '../auth/tokens';
import type { BatonError } from '../model/errors';
import { Errors } from '../model/named-errors';
import { parseBody } from './params';
import { actorOf } from './actor';
import { jsonBody } from './request-body';

// POST /api/token and the Orkes application API (/api/applications), as the official SDKs call them
// (TokenResource, ApplicationClient). Who may call which is in src/auth/route-permissions.ts.

export interface AuthRoutesDeps {
  applications: ApplicationService;
  authorization: AuthorizationService;
  /** Absent while auth is off: /api/token then answers 404, which the SDKs read as "this server has no auth". */
  issuer?: { directory: AccessDirectory; tokens: AccessTokens; guard: SignInGuard };
}

const TAGS = jsonBody(z.array(TagSchema).max(100), 'tags');
const APPLICATION = jsonBody(ApplicationRequestSchema, 'createOrUpdateApplicationRequest');

const authOff = (): BatonError => Errors.AUTH_OFF();

/** Declares the routes under `r` (mounted at /api/token). */
export function tokenRoutes(r: RouteTable, deps: { access?: { routes: AuthRoutesDeps } }): void {
  const issuer = () => deps.access?.routes.issuer;

  r.post(
    '/',
    {
      permission: 'public',
      summary: 'An access token for an access key (send it as X-Authorization); 404 while auth is off',
      body: { inline: TokenRequestSchema },
      res: { inline: z.object({ token: z.string() }) },
    },
    async (req, res) => {
      const d = { issuer: issuer() };
      if (!d.issuer) throw authOff();
      const { keyId, keySecret } = parseBody(TokenRequestSchema, req.body, 'generateTokenRequest');
      const { directory, guard } = d.issuer;
      // Forwarded-for headers are not trusted: behind a proxy every client shares its address (BATON_TOKEN_MAX_FAILURES_PER_CLIENT).
      const client = req.socket.remoteAddress ?? 'unknown';
      const principal = await guard
        .attempt(keyId, client, () => directory.authenticate(keyId, keySecret))
        .catch((err: unknown) => {
          if (err instanceof RetryLater) res.setHeader('Retry-After', String(err.retryAfterSeconds));
          throw err;
        });
      // No `error` code here: the SDKs refresh on INVALID_TOKEN, and refreshing is this very call.
      if (!principal) throw Errors.ACCESS_KEY_INVALID();
      res.json({ token: await d.issuer.tokens.issue(principal.keyId, principal.applicationId) });
    },
  );

  r.get(
    '/userInfo',
    { permission: 'authenticated', summary: 'The application of the calling token and its roles', res: { inline: z.record(z.string(), z.unknown()) } },
    (req, res) => {
      const p = principalOf(req);
      if (!issuer() || !p) throw authOff();
      res.json({
        id: `app:${p.applicationId}`,
        name: p.applicationName,
        applicationUser: true,
        roles: p.roles.map((name) => ({ name })),
        accessKeyId: p.keyId,
      });
    },
  );
}

/** Declares the routes under `r` (mounted at /api/applications; served only where access control is wired). */
export function applicationRoutes(r: RouteTable, deps: { access?: { routes: AuthRoutesDeps } }): void {
  const apps = (): ApplicationService => deps.access!.routes.applications;
  const role = { role: { schema: { type: 'string' }, description: `Orkes' role names (${OrkesRoleSchema.options.join(', ')}) or a custom role's` } };
  // A custom role is held by the application's user (app:<id>), which gives its keys the role's permissions.
  const isCustom = (role: string): boolean => !OrkesRoleSchema.safeParse(role).success;
  const addRole = async (applicationId: string, role: string, by: string): Promise<ApplicationRecord> => {
    if (!isCustom(role)) return apps().addRole(applicationId, role, by);
    await apps().get(applicationId);
    await deps.access!.routes.authorization.holdRole(applicationUserId(applicationId), role);
    return apps().get(applicationId);
  };
  const removeRole = async (applicationId: string, role: string, by: string): Promise<ApplicationRecord> => {
    if (!isCustom(role)) return apps().removeRole(applicationId, role, by);
    await apps().get(applicationId);
    await deps.access!.routes.authorization.dropRole(applicationUserId(applicationId), role);
    return apps().get(applicationId);
  };

  r.get(
    '/',
    { permission: 'admin', summary: 'All applications', res: { inline: z.array(ApplicationRecordSchema) } },
    async (_req, res) => void res.json(await apps().list()),
  );
  r.post(
    '/',
    {
      permission: 'admin',
      summary: 'Create an application (no roles, no keys yet)',
      body: APPLICATION,
      res: { inline: ApplicationRecordSchema },
    },
    async (req, res) => {
      res.json(await apps().create(req.body.name, actorOf(req)));
    },
  );
  // Before /:id, which would take "key" as an application id.
  r.get(
    '/key/{accessKeyId}',
    { permission: 'admin', summary: 'The application an access key belongs to', res: { inline: ApplicationRecordSchema } },
    async (req, res) => void res.json(await apps().byAccessKey(req.params.accessKeyId)),
  );
  r.get(
    '/{id}',
    { permission: 'admin', summary: 'An application', res: { inline: ApplicationRecordSchema } },
    async (req, res) => void res.json(await apps().get(req.params.id)),
  );
  r.put('/{id}', { permission: 'admin', summary: 'Rename an application', body: APPLICATION, res: { inline: ApplicationRecordSchema } }, async (req, res) => {
    res.json(await apps().rename(req.params.id, req.body.name, actorOf(req)));
  });
  r.delete('/{id}', { permission: 'admin', summary: 'Delete an application and its access keys', res: 'empty' }, async (req, res) => {
    await apps().delete(req.params.id);
    res.status(200).end();
  });

  r.get(
    '/{id}/accessKeys',
    { permission: 'admin', summary: "An application's access keys (never their secrets)", res: { inline: z.array(AccessKeyInfoSchema) } },
    async (req, res) => void res.json(await apps().keys(req.params.id)),
  );
  r.post(
    '/{id}/accessKeys',
    {
      permission: 'admin',
      summary: 'Create an access key; its secret is in this answer only',
      res: { inline: z.object({ id: z.string(), secret: z.string() }) },
    },
    async (req, res) => void res.json(await apps().createKey(req.params.id)),
  );
  r.delete('/{applicationId}/accessKeys/{keyId}', { permission: 'admin', summary: 'Delete an access key', res: 'empty' }, async (req, res) => {
    await apps().deleteKey(req.params.applicationId, req.params.keyId);
    res.status(200).end();
  });
  r.post(
    '/{applicationId}/accessKeys/{keyId}/status',
    { permission: 'admin', summary: 'Toggle an access key between ACTIVE and INACTIVE', res: { inline: AccessKeyInfoSchema } },
    async (req, res) => void res.json(await apps().toggleKey(req.params.applicationId, req.params.keyId)),
  );

  // The SDKs add a role with POST; PUT is accepted too.
  r.post(
    '/{applicationId}/roles/{role}',
    {
      permission: 'admin',
      summary: `Grant a role (Orkes' names, mapped to Baton's ${ROLES.join(', ')}; a custom role goes to the application's user)`,
      pathParams: role,
      res: { inline: ApplicationRecordSchema },
    },
    async (req, res) => void res.json(await addRole(req.params.applicationId, req.params.role, actorOf(req))),
  );
  r.put(
    '/{applicationId}/roles/{role}',
    {
      permission: 'admin',
      summary: `Grant a role (Orkes' names, mapped to Baton's ${ROLES.join(', ')}; a custom role goes to the application's user)`,
      pathParams: role,
      res: { inline: ApplicationRecordSchema },
    },
    async (req, res) => void res.json(await addRole(req.params.applicationId, req.params.role, actorOf(req))),
  );
  r.delete(
    '/{applicationId}/roles/{role}',
    { permission: 'admin', summary: 'Take a role away', pathParams: role, res: { inline: ApplicationRecordSchema } },
    async (req, res) => void res.json(await removeRole(req.params.applicationId, req.params.role, actorOf(req))),
  );

  r.get(
    '/{id}/tags',
    { permission: 'admin', summary: "An application's tags", res: { inline: z.array(TagSchema) } },
    async (req, res) => void res.json(await apps().tags(req.params.id)),
  );
  r.put('/{id}/tags', { permission: 'admin', summary: 'Add tags to an application', body: TAGS, res: 'empty' }, async (req, res) => {
    await apps().addTags(req.params.id, req.body, actorOf(req));
    res.status(200).end();
  });
  r.delete('/{id}/tags', { permission: 'admin', summary: 'Remove tags from an application', body: TAGS, res: 'empty' }, async (req, res) => {
    await apps().removeTags(req.params.id, req.body, actorOf(req));
    res.status(200).end();
  });
}
