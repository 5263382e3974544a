import { authSettings, isLoopbackAddress, parseAllowedHosts, parseOrigins, type AuthConfig } from '../../../src/auth/auth-settings';
import { ConfigError, loadConfig } from '../../../src/config';

const base: AuthConfig = {
  BATON_PROFILE: 'embedded',
  BATON_BIND: '127.0.0.1',
  PORT: 8080,
  BATON_AUTH_TOKEN_TTL_SECONDS: 3600,
  BATON_AUTH_CACHE_MS: 5000,
  BATON_CORS_ORIGINS: '',
  BATON_ALLOWED_HOSTS: '',
  BATON_TOKEN_MAX_FAILURES_PER_KEY: 10,
  BATON_TOKEN_MAX_FAILURES_PER_CLIENT: 100,
  BATON_TOKEN_FAILURE_WINDOW_SECONDS: 300,
  BATON_AUTH_HASH_CONCURRENCY: 2,
  BATON_AUTH_HASH_QUEUE: 64,
  BATON_MAX_APPLICATIONS: 10_000,
  BATON_MAX_AUTHORIZATION_RECORDS: 10_000,
};
const admin = { BATON_ADMIN_KEY_ID: 'root', BATON_ADMIN_KEY_SECRET: 'correct horse battery staple' };

function errorOf(cfg: AuthConfig): string {
  try {
    authSettings(cfg);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('secure by default', () => {
  test('the embedded profile binds loopback and, there, may run without auth', () => {
    expect(loadConfig({}).BATON_BIND).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).BATON_BIND).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', BATON_BIND: '::1' }).BATON_BIND).toBe('::1');
    expect(loadConfig({ BATON_PROFILE: 'distributed', BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite' }).BATON_BIND).toBe('0.0.0.0');
    const s = authSettings(base);
    expect([s.enabled, s.warnings]).toEqual([false, []]);
  });

  test('any other address needs auth: without an admin key the start stops, naming both variables', () => {
    for (const bind of ['0.0.0.0', '::', '10.1.2.3', 'baton.example.com']) {
      const message = errorOf({ ...base, BATON_BIND: bind });
      expect(message).toContain('BATON_ADMIN_KEY_ID and BATON_ADMIN_KEY_SECRET: required');
      expect(message).toContain(`BATON_BIND=${bind}`);
      expect(message).toContain('BATON_AUTH=off');
    }
    expect(errorOf({ ...base, BATON_BIND: '0.0.0.0', BATON_ADMIN_KEY_ID: 'root' })).toMatch(/BATON_ADMIN_KEY_SECRET: required/);
  });

  test('the distributed profile needs auth wherever it listens', () => {
    expect(errorOf({ ...base, BATON_PROFILE: 'distributed' })).toMatch(/required, auth is on \(the distributed profile\)/);
    expect(authSettings({ ...base, BATON_PROFILE: 'distributed', ...admin }).enabled).toBe(true);
  });

  test('BATON_AUTH=on turns it on on loopback too; the admin key is then what the environment says', () => {
    expect(errorOf({ ...base, BATON_AUTH: 'on' })).toMatch(/auth is on \(BATON_AUTH=on\)/);
    const s = authSettings({ ...base, BATON_AUTH: 'on', ...admin });
    expect(s.enabled).toBe(true);
    expect(s.adminKey).toEqual({ id: 'root', secret: admin.BATON_ADMIN_KEY_SECRET });
  });

  test('BATON_AUTH=off on a non-loopback address or in the distributed profile starts, with a loud warning', () => {
    const open = authSettings({ ...base, BATON_BIND: '0.0.0.0', BATON_AUTH: 'off' });
    expect(open.enabled).toBe(false);
    expect(open.warnings.join('\n')).toMatch(/AUTHENTICATION IS OFF \(BATON_AUTH=off\) while Baton listens on 0\.0\.0\.0:8080/);
    expect(authSettings({ ...base, BATON_PROFILE: 'distributed', BATON_AUTH: 'off' }).warnings.join('\n')).toMatch(
      /AUTHENTICATION IS OFF.*distributed profile/,
    );
    expect(authSettings({ ...base, BATON_AUTH: 'off' }).warnings).toEqual([]);
  });

  test('short secrets are refused without being echoed', () => {
    const message = errorOf({
      ...base,
      BATON_AUTH: 'on',
      BATON_ADMIN_KEY_ID: 'root',
      BATON_ADMIN_KEY_SECRET: 'tiny-secret',
      BATON_AUTH_TOKEN_SECRET: 'also-short-signing',
    });
    expect(message).toMatch(/BATON_ADMIN_KEY_SECRET: must be at least 16 characters \(got 11\)/);
    expect(message).toMatch(/BATON_AUTH_TOKEN_SECRET: must be at least 32 characters/);
    expect(message).not.toMatch(/tiny-secret|also-short-signing/);
  });

  test('the new variables are validated like every other, naming the variable', () => {
    expect(() => loadConfig({ BATON_AUTH_TOKEN_TTL_SECONDS: '0' })).toThrow(/BATON_AUTH_TOKEN_TTL_SECONDS/);
    expect(() => loadConfig({ BATON_AUTH: 'maybe' })).toThrow(/BATON_AUTH/);
    expect(loadConfig({})).toMatchObject({ BATON_AUTH_TOKEN_TTL_SECONDS: 3600, BATON_AUTH_CACHE_MS: 5000, BATON_CORS_ORIGINS: '', BATON_ALLOWED_HOSTS: '' });
  });
});

describe('addresses, hosts and origins', () => {
  test('loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect([a, isLoopbackAddress(a)]).toEqual([a, true]);
    for (const a of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', '::ffff:10.0.0.1', 'example.com']) expect([a, isLoopbackAddress(a)]).toEqual([a, false]);
  });

  test('allowed hosts: localhost names, the bind address, the configured names; * turns the check off', () => {
    expect(parseAllowedHosts('', '127.0.0.1')).toEqual(new Set(['localhost', '127.0.0.1', '[::1]']));
    expect(parseAllowedHosts('Baton.Internal, 10.0.0.5, fe80::1', '192.168.1.9')).toEqual(
      new Set(['localhost', '127.0.0.1', '[::1]', '192.168.1.9', 'baton.internal', '10.0.0.5', '[fe80::1]']),
    );
    expect(parseAllowedHosts('', '0.0.0.0')).toEqual(new Set(['localhost', '127.0.0.1', '[::1]']));
    expect(parseAllowedHosts('a,*', '127.0.0.1')).toBe('any');
    expect(() => parseAllowedHosts('http://x/', '127.0.0.1')).toThrow(/BATON_ALLOWED_HOSTS/);
  });

  test('CORS origins are exact origins', () => {
    expect(parseOrigins('https://ui.example.com, http://localhost:3000')).toEqual(new Set(['https://ui.example.com', 'http://localhost:3000']));
    expect(parseOrigins('HTTPS://UI.example.com:443/')).toEqual(new Set(['https://ui.example.com']));
    for (const bad of ['*', 'ui.example.com', 'https://ui.example.com/app', 'ftp://x', 'https://u:p@x.com', 'null'])
      expect(() => parseOrigins(bad)).toThrow(/BATON_CORS_ORIGINS/);
  });
});
