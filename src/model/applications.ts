import { z } from 'zod';

// Applications and their access keys, as the Orkes application API shapes them (the official SDKs'
// ApplicationClient): an application holds roles and tags; each access key is an id and a secret
// shown once, of which only a hash is kept.

/** The roles Baton knows; what each may do is in src/auth/roles.ts. */
export const RoleSchema = z.enum(['ADMIN', 'METADATA_MANAGER', 'WORKFLOW_MANAGER', 'WORKER', 'READ_ONLY']);
export type Role = z.infer<typeof RoleSchema>;
export const ROLES: readonly Role[] = RoleSchema.options;

export const TagSchema = z.object({ key: z.string().max(256).optional(), value: z.string().max(1024).optional(), type: z.string().max(64).optional() });
export type Tag = z.infer<typeof TagSchema>;

export const ApplicationRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdBy: z.string(),
  createTime: z.number(),
  updatedBy: z.string(),
  updateTime: z.number(),
  roles: z.array(RoleSchema),
  tags: z.array(TagSchema),
});
export type ApplicationRecord = z.infer<typeof ApplicationRecordSchema>;

export const AccessKeyStatusSchema = z.enum(['ACTIVE', 'INACTIVE']);

export const AccessKeyRecordSchema = z.object({
  id: z.string(),
  applicationId: z.string(),
  /** scrypt hash of the secret with its parameters and salt (src/auth/secrets.ts); never the secret. */
  secretHash: z.string(),
  status: AccessKeyStatusSchema,
  createdAt: z.number(),
});
export type AccessKeyRecord = z.infer<typeof AccessKeyRecordSchema>;

/** A key as the SDKs read it (AccessKeyInfo): never its secret or hash. */
export const AccessKeyInfoSchema = AccessKeyRecordSchema.pick({ id: true, createdAt: true, status: true });
export type AccessKeyInfo = z.infer<typeof AccessKeyInfoSchema>;

/** Body of POST and PUT /api/applications. */
export const ApplicationRequestSchema = z.object({ name: z.string().trim().min(1).max(255) });

/** Body of POST /api/token (what the SDKs send). */
export const TokenRequestSchema = z.object({ keyId: z.string().min(1).max(256), keySecret: z.string().min(1).max(1024) });
