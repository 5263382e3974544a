import { z } from 'zod';

// Orkes' authorization API as the official SDKs call it (UserClient, GroupClient, AuthorizationClient):
// users and groups are subjects, a grant gives a subject some access to one target.

/** Every target type Orkes lists; all are stored, only some are enforced (src/auth/resource-targets.ts). */
export const TargetTypeSchema = z.enum([
  'WORKFLOW',
  'WORKFLOW_DEF',
  'WORKFLOW_SCHEDULE',
  'EVENT_HANDLER',
  'TASK_DEF',
  'TASK_REF_NAME',
  'TASK_ID',
  'APPLICATION',
  'USER',
  'SECRET_NAME',
  'ENV_VARIABLE',
  'TAG',
  'DOMAIN',
  'INTEGRATION_PROVIDER',
  'INTEGRATION',
  'PROMPT',
  'USER_FORM_TEMPLATE',
  'SCHEMA',
  'CLUSTER_CONFIG',
  'WEBHOOK',
  // The Java client's spellings.
  'SECRET',
  'API_GATEWAY_SERVICE',
  'API_GATEWAY_SERVICE_ROUTE',
]);
export type TargetType = z.infer<typeof TargetTypeSchema>;

export const AccessSchema = z.enum(['CREATE', 'READ', 'UPDATE', 'EXECUTE', 'DELETE']);
export type Access = z.infer<typeof AccessSchema>;

/** TAG (the Java client lists it) is stored and never matches a caller. */
export const SubjectTypeSchema = z.enum(['USER', 'GROUP', 'ROLE', 'TAG']);
export type SubjectType = z.infer<typeof SubjectTypeSchema>;

/** Orkes' role names; what each means in Baton's roles is in src/auth/orkes-roles.ts. */
export const OrkesRoleSchema = z.enum([
  'ADMIN',
  'USER',
  'METADATA_MANAGER',
  'WORKFLOW_MANAGER',
  'WORKER',
  'UNRESTRICTED_WORKER',
  'METADATA_API',
  'APPLICATION_MANAGER',
  'APPLICATION_CREATOR',
  'USER_READ_ONLY',
  'READ_ONLY',
]);
export type OrkesRole = z.infer<typeof OrkesRoleSchema>;

/** Ids of users, groups and targets: names, so the same bounds as names elsewhere. */
const IdSchema = z
  .string()
  .min(1)
  .max(255)
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

/** A role a user or group holds: one of Orkes' names or a custom role's (checked to exist where it is set). */
export const RoleNameSchema = IdSchema;

export const SubjectRefSchema = z.object({ type: SubjectTypeSchema.default('USER'), id: IdSchema });
export type SubjectRef = z.infer<typeof SubjectRefSchema>;

export const TargetRefSchema = z.object({ type: TargetTypeSchema, id: IdSchema });
export type TargetRef = z.infer<typeof TargetRefSchema>;

/** Body of POST and DELETE /api/auth/authorization. */
export const AuthorizationRequestSchema = z.object({ subject: SubjectRefSchema, target: TargetRefSchema, access: z.array(AccessSchema).min(1).max(5) });
export type AuthorizationRequest = z.infer<typeof AuthorizationRequestSchema>;

export const GrantRecordSchema = z.object({ subject: SubjectRefSchema, target: TargetRefSchema, access: z.array(AccessSchema) });
export type GrantRecord = z.infer<typeof GrantRecordSchema>;

/** The SDKs send `roles` as one name (JS types) or a list (Python, Java): both are read as a list. */
const RolesInSchema = z.union([RoleNameSchema.transform((r) => [r]), z.array(RoleNameSchema).max(8)]);

/** Body of PUT /api/users/{id}. */
export const UpsertUserRequestSchema = z.object({
  name: z.string().max(255).optional(),
  roles: RolesInSchema.optional(),
  groups: z.array(IdSchema).max(100).optional(),
});

/** Body of PUT /api/groups/{id}. */
export const UpsertGroupRequestSchema = z.object({
  description: z.string().max(1024).optional(),
  roles: RolesInSchema.optional(),
  defaultAccess: z.partialRecord(TargetTypeSchema, z.array(AccessSchema).max(5)).optional(),
});

export const UserRecordSchema = z.object({
  id: IdSchema,
  name: z.string(),
  roles: z.array(RoleNameSchema),
  groups: z.array(IdSchema),
  createTime: z.number(),
  updateTime: z.number(),
});
export type UserRecord = z.infer<typeof UserRecordSchema>;

export const GroupRecordSchema = z.object({
  id: IdSchema,
  description: z.string(),
  roles: z.array(RoleNameSchema),
  defaultAccess: z.record(z.string(), z.array(AccessSchema)),
  createTime: z.number(),
  updateTime: z.number(),
});
export type GroupRecord = z.infer<typeof GroupRecordSchema>;

/** A custom role's permission in Orkes' ACCESS_RESOURCE form (READ_WORKFLOW_DEF); the names are in src/auth/custom-roles.ts. */
export const RolePermissionSchema = z.string().min(1).max(64);

/** Body of POST /api/roles and PUT /api/roles/{name} (Orkes' CreateOrUpdateRoleRequest). */
export const CreateOrUpdateRoleRequestSchema = z.object({
  name: RoleNameSchema.optional(),
  permissions: z.array(RolePermissionSchema).max(100).default([]),
});
export type CreateOrUpdateRoleRequest = z.infer<typeof CreateOrUpdateRoleRequestSchema>;

export const CustomRoleRecordSchema = z.object({
  name: RoleNameSchema,
  permissions: z.array(RolePermissionSchema),
  createTime: z.number(),
  updateTime: z.number(),
});
export type CustomRoleRecord = z.infer<typeof CustomRoleRecordSchema>;

export { IdSchema as AuthorizationIdSchema };
