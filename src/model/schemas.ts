import { z } from 'zod';
import { nameSchema } from './definitions';

// JSON schemas (Orkes' SchemaDef and the SchemaClient API) and how a definition names one.

export const SchemaTypeSchema = z.enum(['JSON', 'AVRO', 'PROTOBUF'], { error: 'type must be one of JSON, AVRO, PROTOBUF' });

export const SchemaDefSchema = z.looseObject({
  name: nameSchema('Schema name', 'Schema name cannot be null or empty'),
  version: z
    .number({ error: 'version must be a positive integer' })
    .int('version must be a positive integer')
    .min(1, 'version must be a positive integer')
    .max(2_147_483_647)
    .optional(),
  type: SchemaTypeSchema,
  data: z.record(z.string(), z.unknown()).nullish(),
  externalRef: z.string().nullish(),
  createTime: z.number().optional(),
  updateTime: z.number().optional(),
  createdBy: z.string().optional(),
  updatedBy: z.string().optional(),
  ownerApp: z.string().optional(),
});
/** A stored schema: its version always set. */
export type SchemaDef = z.infer<typeof SchemaDefSchema> & { version: number };

export { SchemaRefSchema, type SchemaRef } from './definitions';
