import { ConfigError, loadConfig } from '../../../src/config';
import { localBaseUrl } from '../../../src/objects/open-object-store';

describe('object store settings', () => {
  it('defaults to a directory, and to s3 once a bucket is named', () => {
    expect(loadConfig({}).BATON_OBJECT_STORE).toBe('directory');
    expect(loadConfig({ BATON_S3_BUCKET: 'baton' }).BATON_OBJECT_STORE).toBe('s3');
    expect(loadConfig({ BATON_S3_BUCKET: 'baton', BATON_OBJECT_STORE: 'directory' }).BATON_OBJECT_STORE).toBe('directory');
  });

  it('refuses s3 without a bucket, and half a key pair, naming the variable', () => {
    expect(() => loadConfig({ BATON_OBJECT_STORE: 's3' })).toThrow(ConfigError);
    expect(() => loadConfig({ BATON_OBJECT_STORE: 's3' })).toThrow(/BATON_S3_BUCKET/);
    expect(() => loadConfig({ BATON_S3_BUCKET: 'baton', BATON_S3_ACCESS_KEY_ID: 'id' })).toThrow(/BATON_S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ BATON_S3_BUCKET: 'baton', BATON_S3_SECRET_ACCESS_KEY: 'secret' })).toThrow(/BATON_S3_ACCESS_KEY_ID/);
  });

  it('links to the bind address, or to loopback when bound to every address', () => {
    expect(localBaseUrl(8080, '127.0.0.1')).toBe('http://127.0.0.1:8080');
    expect(localBaseUrl(8080, '0.0.0.0')).toBe('http://127.0.0.1:8080');
    expect(localBaseUrl(8080, '::1')).toBe('http://[::1]:8080');
  });
});
