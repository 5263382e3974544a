import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// The key that signs links to objects Baton serves itself: BATON_OBJECT_LINK_SECRET, else a key file
// made once in the data directory (as for secrets), so links stay valid across restarts.

export const LINK_KEY_FILE_NAME = 'objects.key';

export function objectLinkKey(opts: { configured?: string; dataDir: string }): Buffer {
  if (opts.configured) return Buffer.from(opts.configured, 'utf8');
  const file = path.join(opts.dataDir, LINK_KEY_FILE_NAME);
  fs.mkdirSync(opts.dataDir, { recursive: true });
  try {
    // 'wx': only the first start creates it; later starts (or a racing replica on a shared volume) read it.
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (text.length < 16) throw new Error(`${file} holds no usable key; remove it to make a new one (links signed with it stop working)`);
  return Buffer.from(text, 'utf8');
}
