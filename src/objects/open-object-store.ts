import path from 'node:path';
import type { Config } from '../config';
import { DirectoryObjectStore } from './directory-object-store';
import { objectLinkKey } from './link-key';
import type { ObjectStore } from './object-store';
import { S3ObjectStore } from './s3-object-store';

/** The directory the directory store keeps its objects in. */
export const objectsDir = (dataDir: string): string => path.join(dataDir, 'objects');

/** Links Baton signs and serves itself (the directory store); absent for a bucket, whose links are presigned. */
export interface ServedObjectLinks {
  store: ObjectStore;
  /** The key links are signed with (read or made on first use: a replica that never signs makes no key file). */
  linkKey(): Buffer;
  /** Called once the server listens: the links' base URL unless BATON_PUBLIC_URL names one. */
  listening(port: number, bind: string): void;
}

/** The URL a client on this machine reaches a server bound to `bind` at. */
export function localBaseUrl(port: number, bind: string): string {
  const host = bind === '0.0.0.0' || bind === '::' || bind === '' ? '127.0.0.1' : bind;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The configured object store (BATON_OBJECT_STORE), and its served links for the directory store. */
export function openObjectStore(cfg: Config): { objects: ObjectStore; served?: ServedObjectLinks } {
  if (cfg.BATON_OBJECT_STORE === 's3') {
    const credentials =
      cfg.BATON_S3_ACCESS_KEY_ID && cfg.BATON_S3_SECRET_ACCESS_KEY
        ? { accessKeyId: cfg.BATON_S3_ACCESS_KEY_ID, secretAccessKey: cfg.BATON_S3_SECRET_ACCESS_KEY }
        : undefined;
    return { objects: new S3ObjectStore({ endpoint: cfg.BATON_S3_ENDPOINT, region: cfg.BATON_S3_REGION, bucket: cfg.BATON_S3_BUCKET!, credentials }) };
  }
  let base = cfg.BATON_PUBLIC_URL;
  let key: Buffer | undefined;
  const linkKey = (): Buffer => (key ??= objectLinkKey({ configured: cfg.BATON_OBJECT_LINK_SECRET, dataDir: cfg.BATON_DATA_DIR }));
  const objects = new DirectoryObjectStore({
    dir: objectsDir(cfg.BATON_DATA_DIR),
    linkKey,
    baseUrl: () => {
      if (!base) throw new Error('object links are not available before the server listens');
      return base;
    },
  });
  return {
    objects,
    served: {
      store: objects,
      linkKey,
      listening: (port, bind) => {
        base ??= localBaseUrl(port, bind);
      },
    },
  };
}
