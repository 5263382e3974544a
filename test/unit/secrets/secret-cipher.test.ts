import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { keyFingerprint, openSecret, parseSecretKey, sealSecret, SecretKeyError } from '../../../src/secrets/secret-cipher';
import { KEY_FILE_NAME, secretKeyOf } from '../../../src/secrets/secret-key';
import { tempDir } from '../../support/temp-dirs';

const key = randomBytes(32);

describe('sealing secrets (AES-256-GCM)', () => {
  test('a sealed value opens under its name with its key, and does not contain the value', () => {
    const sealed = sealSecret(key, 'db_password', 'hunter2-and-more');
    expect(sealed).not.toContain('hunter2');
    expect(sealed.startsWith(`v1.${keyFingerprint(key)}.`)).toBe(true);
    expect(openSecret(key, 'db_password', sealed)).toBe('hunter2-and-more');
  });

  test('each sealing uses a fresh IV', () => {
    expect(sealSecret(key, 'n', 'same')).not.toBe(sealSecret(key, 'n', 'same'));
  });

  test('another key, another name or an altered text is refused, naming the secret but no value', () => {
    const sealed = sealSecret(key, 'api_key', 'the-value');
    expect(() => openSecret(randomBytes(32), 'api_key', sealed)).toThrow(/sealed with another key/);
    expect(() => openSecret(key, 'other_name', sealed)).toThrow(SecretKeyError);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => openSecret(key, 'api_key', parts.join('.'))).toThrow(/does not open/);
    expect(() => openSecret(key, 'api_key', 'garbage')).toThrow(/not in a form/);
  });

  test('a key must be 32 bytes of base64', () => {
    expect(parseSecretKey(key.toString('base64'), 'X').equals(key)).toBe(true);
    expect(() => parseSecretKey(Buffer.alloc(16).toString('base64'), 'BATON_SECRETS_KEY')).toThrow(
      'BATON_SECRETS_KEY must be 32 bytes in base64 (got 16 bytes)',
    );
  });
});

describe('where the key comes from', () => {
  const dir = () => tempDir('baton-key-');

  test('configured: used as given, in either profile', () => {
    const k = secretKeyOf({ configured: key.toString('base64'), profile: 'distributed', dataDir: dir() });
    expect('key' in k && k.key.equals(key)).toBe(true);
  });

  test('embedded without configuration: a private key file made once, then reused', () => {
    const d = dir();
    const first = secretKeyOf({ profile: 'embedded', dataDir: d });
    const second = secretKeyOf({ profile: 'embedded', dataDir: d });
    expect('key' in first && 'key' in second && first.key.equals(second.key)).toBe(true);
    expect(fs.statSync(path.join(d, KEY_FILE_NAME)).mode & 0o077).toBe(0);
  });

  test('distributed without configuration: secrets are refused with the variable to set', () => {
    const d = dir();
    expect(secretKeyOf({ profile: 'distributed', dataDir: d })).toEqual({ missing: expect.stringContaining('BATON_SECRETS_KEY') });
    expect(fs.existsSync(path.join(d, KEY_FILE_NAME))).toBe(false);
  });

  test('a damaged key file stops the start with the reason', () => {
    const d = dir();
    fs.writeFileSync(path.join(d, KEY_FILE_NAME), 'short');
    expect(() => secretKeyOf({ profile: 'embedded', dataDir: d })).toThrow(/must be 32 bytes/);
  });
});
