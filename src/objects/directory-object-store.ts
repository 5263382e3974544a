import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { signedLinkQuery, type LinkOperation } from './link-signature';
import { checkObjectKey, checkObjectPrefix } from './object-keys';
import type { ObjectStore } from './object-store';

// The embedded profile's object store: one file per key under a directory, written atomically
// (a temporary file renamed into place). Its links point at Baton's own route (src/api/object-routes.ts),
// signed with the link key, so a client reads or writes an object without a bearer token.

/** Where temporary files are written before their rename (a name no key segment can take). */
const TMP_DIR = '.tmp';

export interface DirectoryObjectStoreOptions {
  dir: string;
  /** The secret links are signed with (src/objects/link-key.ts), or where to get it when first needed. */
  linkKey: Buffer | (() => Buffer);
  /** Baton's URL as clients reach it (known once the server listens). */
  baseUrl: () => string;
  now?: () => number;
}

export class DirectoryObjectStore implements ObjectStore {
  private readonly dir: string;
  private readonly now: () => number;

  constructor(private readonly opts: DirectoryObjectStoreOptions) {
    this.dir = path.resolve(opts.dir);
    this.now = opts.now ?? Date.now;
  }

  private fileOf(key: string): string {
    return path.join(this.dir, ...checkObjectKey(key).split('/'));
  }

  async put(key: string, body: Buffer): Promise<void> {
    const file = this.fileOf(key);
    const tmpDir = path.join(this.dir, TMP_DIR);
    await fs.mkdir(tmpDir, { recursive: true });
    const tmp = path.join(tmpDir, randomUUID());
    try {
      await fs.writeFile(tmp, body);
      await fs.mkdir(path.dirname(file), { recursive: true });
      try {
        await fs.rename(tmp, file);
      } catch (e) {
        // A concurrent remove may have taken the emptied parent directory away: make it again once.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.rename(tmp, file);
      }
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.fileOf(key));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    const file = this.fileOf(key);
    try {
      await fs.unlink(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return;
      throw e;
    }
    // Empty parent directories go too (best effort: a concurrent put may have filled one again).
    for (let dir = path.dirname(file); dir !== this.dir && dir.startsWith(this.dir); dir = path.dirname(dir)) {
      try {
        await fs.rmdir(dir);
      } catch {
        break;
      }
    }
  }

  async list(prefix: string, limit: number, startAfter?: string): Promise<string[]> {
    checkObjectPrefix(prefix);
    const out: string[] = [];
    if (limit <= 0) return out;
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? '' : prefix.slice(0, slash + 1);
    await this.walk(base, prefix, limit, startAfter, out);
    return out;
  }

  /** Depth first in key order: a directory sorts as its name followed by '/', as its keys do. */
  private async walk(base: string, prefix: string, limit: number, startAfter: string | undefined, out: string[]): Promise<void> {
    let entries: Array<{ name: string; isDirectory(): boolean }>;
    try {
      entries = await fs.readdir(path.join(this.dir, ...base.split('/').filter(Boolean)), { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw e;
    }
    const items = entries
      .filter((e) => !e.name.startsWith('.'))
      .map((e) => ({ at: base + e.name + (e.isDirectory() ? '/' : ''), dir: e.isDirectory() }))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    for (const item of items) {
      if (out.length >= limit) return;
      if (!item.at.startsWith(prefix) && !(item.dir && prefix.startsWith(item.at))) continue;
      if (item.dir) {
        // Every key below starts with `item.at`: all of them sort before startAfter when it diverges lower.
        if (startAfter !== undefined && item.at < startAfter && !startAfter.startsWith(item.at)) continue;
        await this.walk(item.at, prefix, limit, startAfter, out);
      } else if (startAfter === undefined || item.at > startAfter) out.push(item.at);
    }
  }

  async signedUrl(key: string, operation: LinkOperation, ttlSeconds: number): Promise<string> {
    checkObjectKey(key);
    const expires = Math.floor(this.now() / 1000) + Math.max(1, Math.floor(ttlSeconds));
    const base = this.opts.baseUrl().replace(/\/+$/, '');
    const secret = typeof this.opts.linkKey === 'function' ? this.opts.linkKey() : this.opts.linkKey;
    return `${base}/api/objects/${encodeURIComponent(key)}?${signedLinkQuery(secret, operation, key, expires)}`;
  }

  async close(): Promise<void> {}
}
