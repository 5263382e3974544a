import { z } from 'zod';
import type { AuthorizationService } from '../auth/authorization-service';
import {
  AccessSchema,
  AuthorizationIdSchema,
  AuthorizationRequestSchema,
  SubjectRefSchema,
  TargetTypeSchema,
  UpsertGroupRequestSchema,
  UpsertUserRequestSchema,
  type GroupRecord,
  type UserRecord,
} from '../model/authorization';
import { Errors } from '../model/named-errors';
import { boolParam, strParam } from './params';
import { oneOf, type RouteTable } from './route-table';
import { jsonBody } from './request-body';

// Orkes' authorization API as the official SDKs call it (UserResource, GroupResource,
// AuthorizationResource; JS AuthorizationClient, Python OrkesAuthorizationClient, Java
// AuthorizationClient). Who may call it is in src/auth/route-permissions.ts (admins).

type Deps = { access?: { routes: { authorization: AuthorizationService } } };

export const RoleOut = z.object({ name: z.string(), permissions: z.array(z.object({ name: z.string() })) });
export const GroupOut = z.object({
  id: z.string(),
  description: z.string(),
  roles: z.array(RoleOut),
  defaultAccess: z.record(z.string(), z.array(AccessSchema)),
});
export const UserOut = z.object({
  id: z.string(),
  name: z.string(),
  roles: z.array(RoleOut),
  groups: z.array(GroupOut),
  uuid: z.string(),
  applicationUser: z.boolean(),
  encryptedId: z.boolean(),
  encryptedIdDisplayValue: z.string(),
});
export const GrantedAccessOut = z.object({
  grantedAccess: z.array(z.object({ target: z.object({ type: z.string(), id: z.string() }), access: z.array(AccessSchema) })),
});
const USER_IDS = jsonBody(z.array(AuthorizationIdSchema).max(1000), 'userIds');
const GRANT = jsonBody(AuthorizationRequestSchema, 'authorizationRequest');

const rolesOut = (roles: readonly string[]) => roles.map((name) => ({ name, permissions: [] }));
const groupOut = (g: GroupRecord) => ({ id: g.id, description: g.description, roles: rolesOut(g.roles), defaultAccess: g.defaultAccess });

/** The id in a path, with the bounds of ids in bodies. */
const idOf = (raw: string | undefined, what: string): string => {
  const r = AuthorizationIdSchema.safeParse(raw);
  if (!r.success) throw Errors.AUTHORIZATION_ID_INVALID(what, r.error.issues[0]?.message ?? 'invalid');
  return r.data;
};

export function userRoutes(r: RouteTable, deps: Deps): void {
  const authz = (): AuthorizationService => deps.access!.routes.authorization;
  const userOut = async (u: UserRecord) => {
    const groups = (await authz().listGroups()).filter((g) => u.groups.includes(g.id));
    return {
      id: u.id,
      name: u.name,
      roles: rolesOut(u.roles),
      groups: groups.map(groupOut),
      uuid: u.id,
      applicationUser: u.id.startsWith('app:'),
      encryptedId: false,
      encryptedIdDisplayValue: u.id,
    };
  };

  r.get('/', { permission: 'admin', summary: 'All users', query: { apps: 'boolean' }, res: { inline: z.array(UserOut) } }, async (req, res) => {
    // Orkes adds application users with apps=true; Baton lists the users upserted (applications act as app:<id>).
    boolParam(req, 'apps', false);
    res.json(await Promise.all((await authz().listUsers()).map(userOut)));
  });
  r.get(
    '/{id}',
    { permission: 'admin', summary: 'A user', res: { inline: UserOut } },
    async (req, res) => void res.json(await userOut(await authz().getUser(idOf(req.params.id, 'id')))),
  );
  r.put(
    '/{id}',
    {
      permission: 'admin',
      summary: 'Create or update a user (roles by Orkes name, groups by id)',
      body: jsonBody(UpsertUserRequestSchema, 'upsertUserRequest'),
      res: { inline: UserOut },
    },
    async (req, res) => {
      res.json(await userOut(await authz().upsertUser(idOf(req.params.id, 'id'), req.body)));
    },
  );
  r.delete('/{id}', { permission: 'admin', summary: 'Delete a user and its grants', res: 'empty' }, async (req, res) => {
    await authz().deleteUser(idOf(req.params.id, 'id'));
    res.status(200).end();
  });
  r.get('/{userId}/permissions', { permission: 'admin', summary: 'What a user was granted', res: { inline: GrantedAccessOut } }, async (req, res) => {
    res.json(await authz().grantedTo({ type: 'USER', id: idOf(req.params.userId, 'userId') }));
  });
  r.get(
    '/{userId}/checkPermissions',
    {
      permission: 'admin',
      summary: 'Each access a user has on a target',
      query: { type: { schema: { type: 'string', enum: TargetTypeSchema.options }, required: true }, id: { schema: { type: 'string' }, required: true } },
      res: { inline: z.record(AccessSchema, z.boolean()) },
    },
    async (req, res) => {
      const type = TargetTypeSchema.safeParse(strParam(req, 'type'));
      if (!type.success) throw Errors.TARGET_TYPE_INVALID(TargetTypeSchema.options.join(', '));
      res.json(await authz().check(idOf(req.params.userId, 'userId'), { type: type.data, id: idOf(strParam(req, 'id'), 'id') }));
    },
  );
}

export function groupRoutes(r: RouteTable, deps: Deps): void {
  const authz = (): AuthorizationService => deps.access!.routes.authorization;
  const usersOut = (users: UserRecord[]) =>
    users.map((u) => ({ id: u.id, name: u.name, roles: rolesOut(u.roles), uuid: u.id, applicationUser: u.id.startsWith('app:') }));

  r.get(
    '/',
    { permission: 'admin', summary: 'All groups', res: { inline: z.array(GroupOut) } },
    async (_req, res) => void res.json((await authz().listGroups()).map(groupOut)),
  );
  r.get(
    '/{id}',
    { permission: 'admin', summary: 'A group', res: { inline: GroupOut } },
    async (req, res) => void res.json(groupOut(await authz().getGroup(idOf(req.params.id, 'id')))),
  );
  r.put(
    '/{id}',
    { permission: 'admin', summary: 'Create or update a group', body: jsonBody(UpsertGroupRequestSchema, 'upsertGroupRequest'), res: { inline: GroupOut } },
    async (req, res) => {
      res.json(groupOut(await authz().upsertGroup(idOf(req.params.id, 'id'), req.body)));
    },
  );
  r.delete('/{id}', { permission: 'admin', summary: 'Delete a group, its grants and its memberships', res: 'empty' }, async (req, res) => {
    await authz().deleteGroup(idOf(req.params.id, 'id'));
    res.status(200).end();
  });
  r.get(
    '/{groupId}/users',
    { permission: 'admin', summary: 'The users of a group', res: { inline: z.array(z.record(z.string(), z.unknown())) } },
    async (req, res) => void res.json(usersOut(await authz().usersIn(idOf(req.params.groupId, 'groupId')))),
  );
  r.post('/{groupId}/users', { permission: 'admin', summary: 'Add users to a group', body: USER_IDS, res: 'empty' }, async (req, res) => {
    await authz().addUsers(idOf(req.params.groupId, 'groupId'), req.body);
    res.status(200).end();
  });
  r.delete('/{groupId}/users', { permission: 'admin', summary: 'Remove users from a group', body: USER_IDS, res: 'empty' }, async (req, res) => {
    await authz().removeUsers(idOf(req.params.groupId, 'groupId'), req.body);
    res.status(200).end();
  });
  r.post('/{groupId}/users/{userId}', { permission: 'admin', summary: 'Add a user to a group', res: 'empty' }, async (req, res) => {
    await authz().addUsers(idOf(req.params.groupId, 'groupId'), [idOf(req.params.userId, 'userId')]);
    res.status(200).end();
  });
  r.delete('/{groupId}/users/{userId}', { permission: 'admin', summary: 'Remove a user from a group', res: 'empty' }, async (req, res) => {
    await authz().removeUsers(idOf(req.params.groupId, 'groupId'), [idOf(req.params.userId, 'userId')]);
    res.status(200).end();
  });
  r.get('/{groupId}/permissions', { permission: 'admin', summary: 'What a group was granted', res: { inline: GrantedAccessOut } }, async (req, res) => {
    res.json(await authz().grantedTo({ type: 'GROUP', id: idOf(req.params.groupId, 'groupId') }));
  });
}

/** Mounted at /api/auth/authorization. */
export function grantRoutes(r: RouteTable, deps: Deps): void {
  const authz = (): AuthorizationService => deps.access!.routes.authorization;
  r.post('/', { permission: 'admin', summary: 'Grant a subject access to a target (added to what it holds)', body: GRANT, res: 'empty' }, async (req, res) => {
    await authz().grant(req.body);
    res.status(200).end();
  });
  r.delete('/', { permission: 'admin', summary: 'Take access to a target away from a subject', body: GRANT, res: 'empty' }, async (req, res) => {
    await authz().revoke(req.body);
    res.status(200).end();
  });
  r.get(
    '/{type}/{id}',
    {
      permission: 'admin',
      summary: 'The subjects holding each access on a target',
      pathParams: { type: { schema: oneOf([...TargetTypeSchema.options]) } },
      // Only the accesses someone holds appear (a target nobody was granted anything on answers {}).
      res: { inline: z.partialRecord(AccessSchema, z.array(SubjectRefSchema)) },
    },
    async (req, res) => {
      const type = TargetTypeSchema.safeParse(req.params.type);
      if (!type.success) throw Errors.TARGET_TYPE_INVALID(TargetTypeSchema.options.join(', '));
      res.json(await authz().grantsOn({ type: type.data, id: idOf(req.params.id, 'id') }));
    },
  );
}
