import { engineSuite } from './real-engines';
import { S3ObjectStore } from '../../src/objects/s3-object-store';

/** The S3-compatible server `npm run services` started (s3proxy), from BATON_S3_* (run/s3proxy.env). */
export const s3Env = (): Record<string, string> | undefined => {
  const e = process.env;
  if (!e.BATON_S3_ENDPOINT || !e.BATON_S3_BUCKET || !e.BATON_S3_ACCESS_KEY_ID || !e.BATON_S3_SECRET_ACCESS_KEY) return undefined;
  return {
    BATON_S3_ENDPOINT: e.BATON_S3_ENDPOINT,
    BATON_S3_BUCKET: e.BATON_S3_BUCKET,
    BATON_S3_REGION: e.BATON_S3_REGION ?? 'us-east-1',
    BATON_S3_ACCESS_KEY_ID: e.BATON_S3_ACCESS_KEY_ID,
    BATON_S3_SECRET_ACCESS_KEY: e.BATON_S3_SECRET_ACCESS_KEY,
  };
};

/** `describe` when an S3-compatible server is configured; otherwise skipped with the reason (a failure with CI=true). */
export const describeS3 = engineSuite('s3proxy', s3Env() ? undefined : 'BATON_S3_ENDPOINT, BATON_S3_BUCKET and the key pair are not set');

/** A store on the configured bucket, its links signed at `now`. */
/** Why the real retention suites cannot run (Cassandra, Elasticsearch and the object store), or undefined. */
export const missingRetentionEngines = (): string | undefined =>
  !process.env.CASSANDRA_CONTACT_POINTS
    ? 'CASSANDRA_CONTACT_POINTS is not set'
    : !process.env.ELASTICSEARCH_URL
      ? 'ELASTICSEARCH_URL is not set'
      : !s3Env()
        ? 'BATON_S3_* are not set'
        : undefined;

export function s3Store(now?: () => number): S3ObjectStore {
  const e = s3Env();
  if (!e) throw new Error('no S3-compatible server configured');
  return new S3ObjectStore({
    endpoint: e.BATON_S3_ENDPOINT,
    region: e.BATON_S3_REGION!,
    bucket: e.BATON_S3_BUCKET!,
    credentials: { accessKeyId: e.BATON_S3_ACCESS_KEY_ID!, secretAccessKey: e.BATON_S3_SECRET_ACCESS_KEY! },
    now,
  });
}
