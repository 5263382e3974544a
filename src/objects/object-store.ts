/**
 * An object store: the archive of finished executions and Conductor's external payload storage.
 * Adapters: a directory on disk (embedded profile; Baton serves its signed links itself) and an
 * S3-compatible bucket (distributed profile; links are S3 presigned URLs).
 */
export interface ObjectStore {
  /** Writes the object whole (replacing any object at the key). */
  put(key: string, body: Buffer, contentType?: string): Promise<void>;
  /** The object's bytes, or undefined when there is none at the key. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes the object; removing a missing key is not an error. */
  remove(key: string): Promise<void>;
  /** Keys under a prefix, in key order, at most `limit`, after `startAfter` when given (paging). */
  list(prefix: string, limit: number, startAfter?: string): Promise<string[]>;
  /** A URL a client can GET (operation READ) or PUT (operation WRITE) without other credentials, valid for `ttlSeconds`. */
  signedUrl(key: string, operation: 'READ' | 'WRITE', ttlSeconds: number): Promise<string>;
  close(): Promise<void>;
}
