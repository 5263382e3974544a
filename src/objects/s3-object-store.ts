import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { LinkOperation } from './link-signature';
import { checkObjectKey, checkObjectPrefix } from './object-keys';
import type { ObjectStore } from './object-store';

// The distributed profile's object store: a bucket of an S3-compatible server, path-style (MinIO,
// s3proxy, SeaweedFS and AWS all take it). Links are S3 presigned URLs: clients talk to the bucket.

export interface S3ObjectStoreOptions {
  /** The server's URL; absent: AWS's endpoint for the region. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Absent: the SDK's standard chain (AWS_* variables, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** The clock links are signed at. */
  now?: () => number;
}

/** At most this many keys per ListObjectsV2 call (the S3 API's own ceiling). */
const PAGE = 1000;

export class S3ObjectStore implements ObjectStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly now: () => number;

  constructor(opts: S3ObjectStoreOptions) {
    this.bucket = opts.bucket;
    this.now = opts.now ?? Date.now;
    this.client = new S3Client({
      endpoint: opts.endpoint,
      region: opts.region,
      forcePathStyle: true,
      credentials: opts.credentials,
      // Checksums only where the API requires them: S3-compatible servers do not all take the newer trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Buffer, contentType?: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: checkObjectKey(key), Body: body, ContentType: contentType }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: checkObjectKey(key) }));
      return r.Body ? Buffer.from(await r.Body.transformToByteArray()) : Buffer.alloc(0);
    } catch (e) {
      if (e instanceof NoSuchKey || (e instanceof S3ServiceException && e.$metadata.httpStatusCode === 404)) return undefined;
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: checkObjectKey(key) }));
  }

  async list(prefix: string, limit: number, startAfter?: string): Promise<string[]> {
    checkObjectPrefix(prefix);
    const out: string[] = [];
    let after = startAfter;
    while (out.length < limit) {
      const r = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, MaxKeys: Math.min(PAGE, limit - out.length), StartAfter: after }),
      );
      const keys = (r.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key]));
      // Keys ending in '/' are directory markers some servers list (jclouds' filesystem backend in s3proxy), never objects of ours.
      out.push(...keys.filter((k) => !k.endsWith('/')).slice(0, limit - out.length));
      if (!r.IsTruncated || keys.length === 0) break;
      after = keys[keys.length - 1];
    }
    return out;
  }

  async signedUrl(key: string, operation: LinkOperation, ttlSeconds: number): Promise<string> {
    const input = { Bucket: this.bucket, Key: checkObjectKey(key) };
    const command = operation === 'READ' ? new GetObjectCommand(input) : new PutObjectCommand(input);
    return getSignedUrl(this.client, command, { expiresIn: Math.max(1, Math.floor(ttlSeconds)), signingDate: new Date(this.now()) });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
