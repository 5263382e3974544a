import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed links to objects Baton serves itself (the directory store): the link is the credential.
// HMAC-SHA256 over operation, key and expiry; pure (the clock is an argument).

export type LinkOperation = 'READ' | 'WRITE';

export interface SignedLinkParams {
  operation: LinkOperation;
  key: string;
  /** Unix seconds after which the link is refused. */
  expires: number;
  signature: string;
}

export type LinkVerdict = { ok: true } | { ok: false; reason: 'expired' | 'bad-signature' };

const mac = (secret: Buffer, operation: LinkOperation, key: string, expires: number): Buffer =>
  createHmac('sha256', secret).update(`${operation}\n${key}\n${expires}`).digest();

/** The hex signature of a link. */
export function signLink(secret: Buffer, operation: LinkOperation, key: string, expires: number): string {
  return mac(secret, operation, key, expires).toString('hex');
}

/** Whether a link's signature matches its operation, key and expiry, and it has not expired at `nowMs`. */
export function verifyLink(secret: Buffer, link: SignedLinkParams, nowMs: number): LinkVerdict {
  if (!Number.isSafeInteger(link.expires) || !/^[0-9a-f]{64}$/.test(link.signature)) return { ok: false, reason: 'bad-signature' };
  const expected = mac(secret, link.operation, link.key, link.expires);
  if (!timingSafeEqual(expected, Buffer.from(link.signature, 'hex'))) return { ok: false, reason: 'bad-signature' };
  if (nowMs >= link.expires * 1000) return { ok: false, reason: 'expired' };
  return { ok: true };
}

/** The query of a signed link (`expires` and `signature`). */
export function signedLinkQuery(secret: Buffer, operation: LinkOperation, key: string, expires: number): string {
  return `expires=${expires}&signature=${signLink(secret, operation, key, expires)}`;
}
