import { errors, jwtVerify, SignJWT } from 'jose';

// Access tokens: HS256 JWTs naming the access key (`sub`) and its application (`app`). Roles are not
// in the token: they are looked up per request (cached for BATON_AUTH_CACHE_MS), so disabling a key
// or taking a role away takes effect without waiting for tokens to expire.

const ISSUER = 'baton';

/** The `error` codes the official SDKs refresh their token on (and only those). */
export type TokenFailure = 'EXPIRED_TOKEN' | 'INVALID_TOKEN';

export type TokenCheck = { ok: true; keyId: string; applicationId: string; expiresAt: number } | { ok: false; failure: TokenFailure };

export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(keyId: string, applicationId: string): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ app: applicationId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(keyId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
  }

  async check(token: string): Promise<TokenCheck> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp'],
      });
      if (typeof payload.app !== 'string' || typeof payload.sub !== 'string') return { ok: false, failure: 'INVALID_TOKEN' };
      return { ok: true, keyId: payload.sub, applicationId: payload.app, expiresAt: payload.exp! * 1000 };
    } catch (e) {
      return { ok: false, failure: e instanceof errors.JWTExpired ? 'EXPIRED_TOKEN' : 'INVALID_TOKEN' };
    }
  }
}
