import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// AES-256-GCM sealing of secret values (node:crypto). The secret's name is the additional
// authenticated data, so a sealed value copied under another name does not open. The sealed form
// names the key it was made with (a short fingerprint), so a wrong key is reported as such.

const VERSION = 'v1';
const IV_BYTES = 12;
const KEY_BYTES = 32;

export class SecretKeyError extends Error {}

/** The 32-byte key from its base64 form; throws a SecretKeyError naming the problem (never the key). */
export function parseSecretKey(base64: string, source: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new SecretKeyError(`${source} must be ${KEY_BYTES} bytes in base64 (got ${key.length} bytes)`);
  return key;
}

export const keyFingerprint = (key: Buffer): string => createHash('sha256').update(key).digest('base64url').slice(0, 8);

/** `v1.<key fingerprint>.<iv>.<tag>.<ciphertext>`, base64url. */
export function sealSecret(key: Buffer, name: string, value: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const ct = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [VERSION, keyFingerprint(key), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

/** The value sealed under `name`; throws a SecretKeyError when the key is not the one it was sealed with or the text was altered. */
export function openSecret(key: Buffer, name: string, sealed: string): string {
  const [version, fingerprint, iv, tag, ct] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ct === undefined)
    throw new SecretKeyError(`secret ${name} is not in a form this version reads`);
  if (fingerprint !== keyFingerprint(key)) throw new SecretKeyError(`secret ${name} was sealed with another key than the configured BATON_SECRETS_KEY`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError(`secret ${name} does not open with the configured key (altered or moved)`);
  }
}
