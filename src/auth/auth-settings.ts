import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../config';
import type { SignInLimits } from './sign-in-guard';

// Who must authenticate, decided once at start from the configuration (pure: no I/O).
// Secure by default: the embedded profile listens on loopback only and may then run without auth;
// listening anywhere else, or the distributed profile, needs auth unless BATON_AUTH=off says so.

export interface AuthConfig {
  BATON_PROFILE: 'embedded' | 'distributed';
  BATON_BIND: string;
  PORT: number;
  BATON_AUTH?: 'on' | 'off';
  BATON_ADMIN_KEY_ID?: string;
  BATON_ADMIN_KEY_SECRET?: string;
  BATON_AUTH_TOKEN_SECRET?: string;
  BATON_AUTH_TOKEN_TTL_SECONDS: number;
  BATON_AUTH_CACHE_MS: number;
  BATON_CORS_ORIGINS: string;
  BATON_ALLOWED_HOSTS: string;
  BATON_TOKEN_MAX_FAILURES_PER_KEY: number;
  BATON_TOKEN_MAX_FAILURES_PER_CLIENT: number;
  BATON_TOKEN_FAILURE_WINDOW_SECONDS: number;
  BATON_AUTH_HASH_CONCURRENCY: number;
  BATON_AUTH_HASH_QUEUE: number;
  BATON_MAX_APPLICATIONS: number;
  BATON_MAX_AUTHORIZATION_RECORDS: number;
}

export interface AuthSettings {
  enabled: boolean;
  bind: string;
  /** The first admin key, from the environment (kept in memory only, as a hash: src/auth/access-directory.ts). */
  adminKey?: { id: string; secret: string };
  /** HS256 key of access tokens; undefined means generated once and kept in the metadata store. */
  tokenSecret?: string;
  tokenTtlSeconds: number;
  cacheMs: number;
  /** Origins (scheme://host[:port]) whose browser pages may call the API. */
  corsOrigins: ReadonlySet<string>;
  /** Host header names accepted while auth is off (DNS rebinding); 'any' turns the check off. */
  allowedHosts: ReadonlySet<string> | 'any';
  /** Failed POST /api/token attempts allowed per key id and per client address within the window. */
  signIn: SignInLimits;
  /** scrypt derivations at once, and how many may wait for one. */
  hashing: { concurrency: number; maxQueued: number };
  /** Most applications (BATON_MAX_APPLICATIONS). */
  maxApplications: number;
  /** Most users, groups and grants, each (BATON_MAX_AUTHORIZATION_RECORDS). */
  maxAuthorizationRecords: number;
  /** Said loudly at every start. */
  warnings: string[];
}

export const MIN_ADMIN_SECRET_LENGTH = 16;
export const MIN_TOKEN_SECRET_LENGTH = 32;

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Whether a bind address only accepts connections from this machine. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (a === 'localhost') return true;
  const v = isIP(a);
  if (v === 4) return loopback.check(a, 'ipv4');
  if (v === 6) return loopback.check(a, 'ipv6') || (a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 && loopback.check(a.slice(7), 'ipv4'));
  return false;
}

const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Browser origins as the Origin header spells them; anything with a path, query or credentials is refused. */
export function parseOrigins(value: string): Set<string> {
  const out = new Set<string>();
  for (const raw of list(value)) {
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash || url.pathname !== '/')
      throw new ConfigError(
        `Invalid configuration:\n  BATON_CORS_ORIGINS: ${JSON.stringify(raw)} is not an origin such as https://ui.example.com or http://localhost:3000`,
      );
    out.add(url.origin);
  }
  return out;
}

/** Host names as they appear in a Host header, without the port; IPv6 addresses in brackets. */
function hostName(value: string): string {
  const v = value.trim().toLowerCase();
  if (isIP(v) === 6) return `[${v}]`;
  return v;
}

export function parseAllowedHosts(value: string, bind: string): Set<string> | 'any' {
  const given = list(value);
  if (given.includes('*')) return 'any';
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (bind !== '0.0.0.0' && bind !== '::') names.add(hostName(bind));
  for (const h of given) {
    if (/[/\s@]/.test(h))
      throw new ConfigError(
        `Invalid configuration:\n  BATON_ALLOWED_HOSTS: ${JSON.stringify(h)} is not a host name (names or addresses, comma-separated, without ports)`,
      );
    names.add(hostName(h));
  }
  return names;
}

/** The auth settings, or a ConfigError naming the variable to set. Never echoes a secret. */
export function authSettings(cfg: AuthConfig): AuthSettings {
  const bind = cfg.BATON_BIND;
  const exposed = !isLoopbackAddress(bind);
  const distributed = cfg.BATON_PROFILE === 'distributed';
  const enabled = cfg.BATON_AUTH === 'on' || (cfg.BATON_AUTH === undefined && (exposed || distributed));
  const warnings: string[] = [];
  const problems: string[] = [];
  let adminKey: AuthSettings['adminKey'];

  if (enabled) {
    const why = cfg.BATON_AUTH === 'on' ? 'BATON_AUTH=on' : distributed ? 'the distributed profile' : `BATON_BIND=${bind} is not a loopback address`;
    const { BATON_ADMIN_KEY_ID: id, BATON_ADMIN_KEY_SECRET: secret } = cfg;
    if (!id || !secret) {
      const missing = [!id && 'BATON_ADMIN_KEY_ID', !secret && 'BATON_ADMIN_KEY_SECRET'].filter(Boolean).join(' and ');
      problems.push(
        `${missing}: required, auth is on (${why}). Set the first admin key (any id, a secret of at least ${MIN_ADMIN_SECRET_LENGTH} characters), or set BATON_AUTH=off on purpose`,
      );
    } else if (secret.length < MIN_ADMIN_SECRET_LENGTH)
      problems.push(`BATON_ADMIN_KEY_SECRET: must be at least ${MIN_ADMIN_SECRET_LENGTH} characters (got ${secret.length})`);
    else adminKey = { id, secret };
    const tokenSecret = cfg.BATON_AUTH_TOKEN_SECRET;
    if (tokenSecret !== undefined && tokenSecret.length < MIN_TOKEN_SECRET_LENGTH)
      problems.push(
        `BATON_AUTH_TOKEN_SECRET: must be at least ${MIN_TOKEN_SECRET_LENGTH} characters (got ${tokenSecret.length}); leave it unset to have one generated and kept in the metadata store`,
      );
  } else if (exposed || distributed) {
    warnings.push(
      `AUTHENTICATION IS OFF (BATON_AUTH=off) while Baton ${exposed ? `listens on ${bind}:${cfg.PORT}` : 'runs the distributed profile'}: ` +
        'anyone who reaches it can read, start, change and delete everything. Turn auth on (BATON_ADMIN_KEY_ID/BATON_ADMIN_KEY_SECRET) or keep it on loopback.',
    );
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);

  const allowedHosts = parseAllowedHosts(cfg.BATON_ALLOWED_HOSTS, bind);
  if (!enabled && allowedHosts === 'any') warnings.push('BATON_ALLOWED_HOSTS=* with auth off: the Host check against DNS rebinding is off too');
  return {
    enabled,
    bind,
    adminKey,
    tokenSecret: enabled ? cfg.BATON_AUTH_TOKEN_SECRET : undefined,
    tokenTtlSeconds: cfg.BATON_AUTH_TOKEN_TTL_SECONDS,
    cacheMs: cfg.BATON_AUTH_CACHE_MS,
    corsOrigins: parseOrigins(cfg.BATON_CORS_ORIGINS),
    allowedHosts,
    signIn: {
      perKey: cfg.BATON_TOKEN_MAX_FAILURES_PER_KEY,
      perClient: cfg.BATON_TOKEN_MAX_FAILURES_PER_CLIENT,
      windowMs: cfg.BATON_TOKEN_FAILURE_WINDOW_SECONDS * 1000,
    },
    hashing: { concurrency: cfg.BATON_AUTH_HASH_CONCURRENCY, maxQueued: cfg.BATON_AUTH_HASH_QUEUE },
    maxApplications: cfg.BATON_MAX_APPLICATIONS,
    maxAuthorizationRecords: cfg.BATON_MAX_AUTHORIZATION_RECORDS,
    warnings,
  };
}
