import { z } from 'zod';
import type { Tag } from './tags';

// Secrets: named values kept encrypted, referenced from task inputs as `${workflow.secrets.NAME}`.

/** Letters, digits, `_` and `-`: a name must stay one segment of `${workflow.secrets.NAME.path}`. */
export const SECRET_NAME = /^[A-Za-z0-9_-]{1,255}$/;
/** Orkes caps a secret value at 65535 characters. */
export const MAX_SECRET_VALUE_LENGTH = 65_535;

export const SecretValueSchema = z
  .string({ error: 'the secret value must be a string' })
  .min(1, 'the secret value cannot be empty')
  .max(MAX_SECRET_VALUE_LENGTH, `the secret value must be at most ${MAX_SECRET_VALUE_LENGTH} characters`)
  // Text only (tabs and line breaks allowed): a body of random bytes is a mistake, not a value.
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/.test(v), 'the secret value must be text without control characters or invalid UTF-8');

/** One secret as stored: its value sealed (see src/secrets/secret-cipher.ts), never in clear. */
export interface StoredSecret {
  name: string;
  sealed: string;
  tags: Tag[];
  createTime: number;
  updateTime: number;
}
