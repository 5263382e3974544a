import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseSecretKey, SecretKeyError } from './secret-cipher';

// Where the key that seals secrets comes from: BATON_SECRETS_KEY, or (embedded profile only) a key
// file made once in the data directory. The distributed profile has no shared disk: without the
// variable, secrets are refused when used (every replica must hold the same key).

export const KEY_FILE_NAME = 'secrets.key';

export type SecretKeySource = { key: Buffer } | { missing: string };

export function secretKeyOf(opts: { configured?: string; profile: 'embedded' | 'distributed'; dataDir: string }): SecretKeySource {
  if (opts.configured) return { key: parseSecretKey(opts.configured, 'BATON_SECRETS_KEY') };
  if (opts.profile === 'distributed') return { missing: 'secrets are not configured: set BATON_SECRETS_KEY (base64 of 32 bytes), the same on every replica' };
  const file = path.join(opts.dataDir, KEY_FILE_NAME);
  fs.mkdirSync(opts.dataDir, { recursive: true });
  try {
    // 'wx': only the first start creates it; later starts (or a racing one) read what is there.
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const text = fs.readFileSync(file, 'utf8');
  try {
    return { key: parseSecretKey(text, file) };
  } catch (e) {
    throw new SecretKeyError(`${(e as Error).message}; remove the file only if no secret was stored with it`);
  }
}
