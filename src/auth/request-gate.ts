import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { toErrorBody } from '../api/errors';
import { refuse } from '../api/refusal';
import type { RequestTarget } from '../api/request-target';
import type { AccessDirectory, Principal } from './access-directory';
import { browserVerdict, type BrowserPolicy } from './browser-guard';
import { allows, type Permission } from './roles';
import type { MatchableRoute, RouteMatch } from '../api/route-matcher';
import { isAppChannelPath, permissionOf } from './unlisted-paths';
import type { Access, TargetRef } from '../model/authorization';
import { ApiError, type BatonError } from '../model/errors';
import { Errors } from '../model/named-errors';
import type { AuthorizationService } from './authorization-service';
import { resourceNeedOf } from './resource-targets';
import type { AccessTokens, TokenFailure } from './tokens';

// The one gate every request passes before the hot path or express: browser checks, then the
// token and the permission the route needs (route-permissions.ts). Answers refusals itself with
// Conductor-style JSON bodies (src/api/refusal.ts). It reads the canonical target the front read
// (src/api/request-target.ts), never `req.url` on its own, so express routes the path it judged.

/** true: go on; false: already answered; a promise of either while a token or key is looked up. */
export type RequestGate = (
  req: IncomingMessage,
  res: ServerResponse,
  target: RequestTarget,
  found: RouteMatch<MatchableRoute> | undefined,
) => boolean | Promise<boolean>;

/** What the gate decided a request needs: a route's permission, or the Dapr app channel's own token. */
export type GateDecision = Permission | 'app-channel';

export interface GateDeps {
  browser: BrowserPolicy;
  /** Absent while auth is off. */
  auth?: { tokens: AccessTokens; directory: AccessDirectory; grants?: AuthorizationService };
  log: Logger;
  now?: () => number;
}

const principals = new WeakMap<IncomingMessage, Principal>();
const decisions = new WeakMap<IncomingMessage, GateDecision>();

/** What the gate decided the request needs, when auth is on (tests compare it with the route that ran). */
export const decisionOf = (req: IncomingMessage): GateDecision | undefined => decisions.get(req);

/** Who made the request, when auth is on and the route needed a token. */
export const principalOf = (req: IncomingMessage): Principal | undefined => principals.get(req);

/** Checks a target named in a request's body against its grants (the gate's own decision); rejects with a 403. */
export type GrantCheck = (target: TargetRef, access: Access) => Promise<void>;
const grantChecks = new WeakMap<IncomingMessage, GrantCheck>();

/** The grant check of a request that passed the gate with a token; undefined while auth is off or grants are not wired. */
export const grantCheckOf = (req: IncomingMessage): GrantCheck | undefined => grantChecks.get(req);

const grantRefusal = (p: Principal, target: TargetRef, access: Access): BatonError => Errors.GRANT_REFUSED(p.applicationId, access, target.type, target.id);

/** Verified tokens by their text, so the hot path verifies a signature once per token, not per request. */
const TOKEN_CACHE_MAX = 10_000;

type Refusal = { err: BatonError; error: TokenFailure | 'ACCESS_DENIED' };

function tokenOf(req: IncomingMessage): string | undefined {
  const x = req.headers['x-authorization'];
  if (typeof x === 'string' && x.length > 0) return x.startsWith('Bearer ') ? x.slice(7) : x;
  const a = req.headers.authorization;
  return typeof a === 'string' && a.startsWith('Bearer ') ? a.slice(7) : undefined;
}

export function requestGate(d: GateDeps): RequestGate {
  const now = d.now ?? Date.now;
  const verified = new Map<string, { keyId: string; expiresAt: number }>();

  const grants = d.auth?.grants;
  const decide = (
    principal: Principal | undefined,
    permission: Permission,
    req: IncomingMessage,
    found: RouteMatch<MatchableRoute> | undefined,
  ): Refusal | undefined | Promise<Refusal | undefined> => {
    if (!principal) return { err: Errors.TOKEN_KEY_DISABLED(), error: 'INVALID_TOKEN' };
    if (allows(principal.roles, permission)) return admit(principal, req, found);
    const denied: Refusal = {
      err: Errors.PERMISSION_DENIED(permission, principal.applicationId, principal.roles.join(', ') || 'none'),
      error: 'ACCESS_DENIED',
    };
    // Custom roles held by the key's user or its groups may give what the application's roles do not.
    const ok = grants?.permits(principal.applicationId, permission) ?? false;
    return ok instanceof Promise ? ok.then((yes) => (yes ? admit(principal, req, found) : denied)) : ok ? admit(principal, req, found) : denied;
  };

  const admit = (
    principal: Principal,
    req: IncomingMessage,
    found: RouteMatch<MatchableRoute> | undefined,
  ): Refusal | undefined | Promise<Refusal | undefined> => {
    principals.set(req, principal);
    if (!grants) return undefined;
    grantChecks.set(req, async (target, access) => {
      if (!(await grants.allows(principal.applicationId, principal.roles, target, access))) throw grantRefusal(principal, target, access);
    });
    const need = resourceNeedOf(req.method, found);
    if (!need) return undefined;
    const denied = (ok: boolean): Refusal | undefined => (ok ? undefined : { err: grantRefusal(principal, need.target, need.access), error: 'ACCESS_DENIED' });
    const ok = grants.allows(principal.applicationId, principal.roles, need.target, need.access);
    return ok instanceof Promise ? ok.then(denied) : denied(ok);
  };

  const answer = (res: ServerResponse, r: Refusal | undefined): boolean => (r ? refuse(res, r.err, r.error) : true);
  const answerEither = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    r: Refusal | undefined | Promise<Refusal | undefined>,
  ): boolean | Promise<boolean> =>
    r instanceof Promise
      ? r.then(
          (x) => answer(res, x),
          (err) => failed(err, req, res, path),
        )
      : answer(res, r);

  const authenticate = async (
    token: string,
    permission: Permission,
    req: IncomingMessage,
    found: RouteMatch<MatchableRoute> | undefined,
    auth: NonNullable<GateDeps['auth']>,
  ): Promise<Refusal | undefined> => {
    const checked = await auth.tokens.check(token);
    if (!checked.ok) return { err: checked.failure === 'EXPIRED_TOKEN' ? Errors.TOKEN_EXPIRED() : Errors.TOKEN_INVALID(), error: checked.failure };
    if (verified.size >= TOKEN_CACHE_MAX) verified.clear();
    verified.set(token, { keyId: checked.keyId, expiresAt: checked.expiresAt });
    return decide(await auth.directory.principal(checked.keyId), permission, req, found);
  };

  return (req, res, { path }, found) => {
    const browser = browserVerdict(req.method, path, req.headers, d.browser);
    if (browser.kind === 'refuse') return refuse(res, Errors.BROWSER_REFUSED(browser.message));
    if (browser.headers) for (const [k, v] of Object.entries(browser.headers)) res.setHeader(k, v);
    if (browser.kind === 'preflight') {
      res.statusCode = 204;
      res.end();
      return false;
    }

    const auth = d.auth;
    if (!auth) return true;
    if (isAppChannelPath(path)) {
      decisions.set(req, 'app-channel');
      return true;
    }
    const permission = permissionOf(found, req.method, path);
    decisions.set(req, permission);
    if (permission === 'public') return true;
    const token = tokenOf(req);
    if (!token) return refuse(res, Errors.TOKEN_MISSING(), 'INVALID_TOKEN');

    // Fast path: a token seen before and a principal still cached answer without waiting.
    const seen = verified.get(token);
    if (seen) {
      if (seen.expiresAt <= now()) return refuse(res, Errors.TOKEN_EXPIRED(), 'EXPIRED_TOKEN');
      const principal = auth.directory.principal(seen.keyId);
      if (!(principal instanceof Promise)) return answerEither(req, res, path, decide(principal, permission, req, found));
      return principal.then(
        (p) => answerEither(req, res, path, decide(p, permission, req, found)),
        (err) => failed(err, req, res, path),
      );
    }
    return authenticate(token, permission, req, found, auth).then(
      (r) => answer(res, r),
      (err) => failed(err, req, res, path),
    );
  };

  function failed(err: unknown, req: IncomingMessage, res: ServerResponse, path: string): false {
    const body = toErrorBody(err);
    d.log.error({ err, path, method: req.method }, 'checking access failed');
    return refuse(res, body.status >= 500 ? Errors.ACCESS_CHECK_FAILED() : new ApiError(body.status, body.message, body.validationErrors, body.code));
  }
}
