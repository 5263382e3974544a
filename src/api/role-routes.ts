import { z } from 'zod';
import type { AuthorizationService } from '../auth/authorization-service';
import { permissionsByResource, systemRolePermissions } from '../auth/custom-roles';
import { AuthorizationIdSchema, CreateOrUpdateRoleRequestSchema, OrkesRoleSchema, RoleNameSchema, type CustomRoleRecord } from '../model/authorization';
import { Errors } from '../model/named-errors';
import { jsonBody } from './request-body';
import type { RouteTable } from './route-table';

// Orkes' roles API as the Python SDK calls it (RoleResourceApi, OrkesAuthorizationClient): the system
// roles, listed, and custom roles an admin creates; users and groups hold either by name.

type Deps = { access?: { routes: { authorization: AuthorizationService } } };

const RoleOut = z.object({ name: z.string(), permissions: z.array(z.object({ name: z.string() })) });
const CREATE = jsonBody(CreateOrUpdateRoleRequestSchema.extend({ name: RoleNameSchema }), 'createOrUpdateRoleRequest');
const UPDATE = jsonBody(CreateOrUpdateRoleRequestSchema, 'createOrUpdateRoleRequest');

const roleOut = (name: string, permissions: readonly string[]) => ({ name, permissions: permissions.map((p) => ({ name: p })) });
const customOut = (r: CustomRoleRecord) => roleOut(r.name, r.permissions);
const systemRoles = () => OrkesRoleSchema.options.map((name) => roleOut(name, systemRolePermissions(name)));

const nameOf = (raw: string | undefined): string => {
  const r = AuthorizationIdSchema.safeParse(raw);
  if (!r.success) throw Errors.AUTHORIZATION_ID_INVALID('name', r.error.issues[0]?.message ?? 'invalid');
  return r.data;
};

/** Mounted at /api/roles. */
export function roleRoutes(r: RouteTable, deps: Deps): void {
  const authz = (): AuthorizationService => deps.access!.routes.authorization;

  r.get('/', { permission: 'admin', summary: 'Every role, system then custom', res: { inline: z.array(RoleOut) } }, async (_req, res) => {
    res.json([...systemRoles(), ...(await authz().listRoles()).map(customOut)]);
  });
  r.get(
    '/system',
    { permission: 'admin', summary: 'The system roles by name', res: { inline: z.record(z.string(), RoleOut) } },
    async (_req, res) => void res.json(Object.fromEntries(systemRoles().map((x) => [x.name, x]))),
  );
  r.get(
    '/custom',
    { permission: 'admin', summary: 'The custom roles', res: { inline: z.array(RoleOut) } },
    async (_req, res) => void res.json((await authz().listRoles()).map(customOut)),
  );
  r.get(
    '/permissions',
    { permission: 'admin', summary: 'The permissions a custom role may hold, by resource type', res: { inline: z.record(z.string(), z.array(z.string())) } },
    async (_req, res) => void res.json(permissionsByResource()),
  );
  r.post('/', { permission: 'admin', summary: 'Create a custom role', body: CREATE, res: { inline: RoleOut } }, async (req, res) => {
    res.json(customOut(await authz().createRole(req.body.name, req.body.permissions)));
  });
  r.get('/{name}', { permission: 'admin', summary: 'A role, system or custom', res: { inline: RoleOut } }, async (req, res) => {
    const name = nameOf(req.params.name);
    const system = OrkesRoleSchema.safeParse(name);
    res.json(system.success ? roleOut(name, systemRolePermissions(system.data)) : customOut(await authz().getRole(name)));
  });
  r.put(
    '/{name}',
    { permission: 'admin', summary: "Replace a custom role's permissions", body: UPDATE, res: { inline: RoleOut } },
    async (req, res) => void res.json(customOut(await authz().updateRole(nameOf(req.params.name), req.body.permissions))),
  );
  r.delete('/{name}', { permission: 'admin', summary: 'Delete a custom role, take it from its holders, drop its grants', res: 'empty' }, async (req, res) => {
    await authz().deleteRole(nameOf(req.params.name));
    res.status(200).end();
  });
}
