import { randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import type { HashingSlots } from './hashing-slots';

// Access key secrets are kept as scrypt hashes (node:crypto, run on libuv's thread pool so a token
// request never blocks the event loop). The stored form carries its parameters, so they can change
// later without invalidating existing keys.

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt>$<hash>`, base64url. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether `secret` is the one `stored` was made from; false for anything malformed. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const [nn, rr, pp] = [Number(n), Number(r), Number(p)];
  if (![nn, rr, pp].every((x) => Number.isInteger(x) && x > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const given = await derive(secret, Buffer.from(salt, 'base64url'), nn, rr, pp);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Hashing and checking of access key secrets within the hashing slots, and the same work for a key id
 * that does not exist (against a hash of a random secret), so a token request's cost does not tell
 * whether its key id exists.
 */
export class SecretHasher {
  private constructor(
    private readonly slots: HashingSlots,
    private readonly decoy: string,
  ) {}

  static async create(slots: HashingSlots): Promise<SecretHasher> {
    return new SecretHasher(slots, await slots.run(() => hashSecret(randomBytes(32).toString('base64url'))));
  }

  hash(secret: string): Promise<string> {
    return this.slots.run(() => hashSecret(secret));
  }

  /** `stored` undefined (no such key): the derivation runs all the same, against the decoy, and answers false. */
  async verify(secret: string, stored: string | undefined): Promise<boolean> {
    const ok = await this.slots.run(() => verifySecret(secret, stored ?? this.decoy));
    return stored !== undefined && ok;
  }
}

/** A new access key: a UUID id (as Orkes issues them) and 256 random bits of secret. */
export function newAccessKey(): { id: string; secret: string } {
  return { id: randomUUID(), secret: randomBytes(32).toString('base64url') };
}

/** A new signing key for access tokens. */
export function newTokenSecret(): string {
  return randomBytes(48).toString('base64url');
}
