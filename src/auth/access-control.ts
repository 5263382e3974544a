import type { Logger } from 'pino';
import type { AuthRoutesDeps } from '../api/auth-routes';
import type { FailedAttempts } from '../limits/ports';
import type { AuthorizationStore, MetadataStore } from '../store/ports';
import { AuthorizationService } from './authorization-service';
import { AccessDirectory } from './access-directory';
import { ApplicationService } from './application-service';
import type { AuthSettings } from './auth-settings';
import { HashingSlots } from './hashing-slots';
import { requestGate, type RequestGate } from './request-gate';
import { newTokenSecret } from './secrets';
import { SignInGuard } from './sign-in-guard';
import { AccessTokens } from './tokens';

// Assembles who-may-do-what from the configuration and the metadata store (the composition root calls it).

export interface AccessControl {
  settings: AuthSettings;
  gate: RequestGate;
  routes: AuthRoutesDeps;
}

/** Setting under which a generated token signing key is kept, so every replica signs and verifies alike. */
export const TOKEN_SECRET_SETTING = 'auth.token-signing-key';

/** `settings` from authSettings(cfg), checked before any adapter opens; `attempts` counts failed token requests (shared by replicas). */
export async function createAccessControl(
  settings: AuthSettings,
  stores: { metadata: MetadataStore; authorization: AuthorizationStore },
  log: Logger,
  attempts: FailedAttempts,
): Promise<AccessControl> {
  const store = stores.metadata;
  const authorization = new AuthorizationService(stores.authorization, { cacheMs: settings.cacheMs, maxRecords: settings.maxAuthorizationRecords });
  for (const w of settings.warnings) log.warn({ bind: settings.bind, auth: settings.enabled ? 'on' : 'off' }, w);
  const hashing = new HashingSlots(settings.hashing.concurrency, settings.hashing.maxQueued);
  const directory = await AccessDirectory.create(store, { adminKey: settings.adminKey, cacheMs: settings.cacheMs, hashing });
  const applications = new ApplicationService(store, directory, Date.now, settings.maxApplications);
  const browser = { corsOrigins: settings.corsOrigins, allowedHosts: settings.allowedHosts, checkHost: !settings.enabled };
  if (!settings.enabled) return { settings, gate: requestGate({ browser, log }), routes: { applications, authorization } };

  const secret = settings.tokenSecret ?? (await store.putSettingIfAbsent(TOKEN_SECRET_SETTING, newTokenSecret()));
  const tokens = new AccessTokens(secret, settings.tokenTtlSeconds);
  return {
    settings,
    gate: requestGate({ browser, auth: { tokens, directory, grants: authorization }, log }),
    routes: { applications, authorization, issuer: { directory, tokens, guard: new SignInGuard(attempts, settings.signIn) } },
  };
}
