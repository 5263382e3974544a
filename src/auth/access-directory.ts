import type { Role } from '../model/applications';
import type { MetadataStore } from '../store/ports';
import { HashingSlots } from './hashing-slots';
import { SecretHasher } from './secrets';

// Who an access key belongs to and what its application may do. The first admin key comes from the
// environment and lives here only (as a hash), so it cannot be deleted or disabled through the API;
// every other key is a record of the metadata store.

export interface Principal {
  keyId: string;
  applicationId: string;
  applicationName: string;
  roles: readonly Role[];
}

/** Application id of the environment's admin key (stored applications get UUIDs). */
export const ADMIN_APPLICATION_ID = 'baton-admin';

interface Cached {
  value: Principal | undefined;
  at: number;
}

export class AccessDirectory {
  private readonly cache = new Map<string, Cached>();
  private readonly loading = new Map<string, Promise<Principal | undefined>>();
  private generation = 0;

  private constructor(
    private readonly store: MetadataStore,
    private readonly admin: { principal: Principal; secretHash: string } | undefined,
    private readonly cacheMs: number,
    private readonly now: () => number,
    private readonly hasher: SecretHasher,
  ) {}

  /** `hashing` bounds the scrypt work of token requests and new keys (defaults: 2 at a time, 64 waiting). */
  static async create(
    store: MetadataStore,
    opts: { adminKey?: { id: string; secret: string }; cacheMs: number; now?: () => number; hashing?: HashingSlots },
  ): Promise<AccessDirectory> {
    const hasher = await SecretHasher.create(opts.hashing ?? new HashingSlots(2, 64));
    const admin = opts.adminKey && {
      principal: {
        keyId: opts.adminKey.id,
        applicationId: ADMIN_APPLICATION_ID,
        applicationName: 'Baton admin (BATON_ADMIN_KEY_ID)',
        roles: ['ADMIN'] as const,
      },
      secretHash: await hasher.hash(opts.adminKey.secret),
    };
    return new AccessDirectory(store, admin, opts.cacheMs, opts.now ?? Date.now, hasher);
  }

  /** The key's principal when the key exists, is active and its application exists; synchronous while cached. */
  principal(keyId: string): Principal | undefined | Promise<Principal | undefined> {
    if (this.admin && keyId === this.admin.principal.keyId) return this.admin.principal;
    const hit = this.cache.get(keyId);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.value;
    let pending = this.loading.get(keyId);
    if (!pending) {
      const generation = this.generation;
      pending = this.load(keyId).then(
        (value) => {
          // A change made while this load ran may not be in it: cache only loads that started after the last change.
          if (generation === this.generation && this.cacheMs > 0) this.cache.set(keyId, { value, at: this.now() });
          this.loading.delete(keyId);
          return value;
        },
        (err) => {
          this.loading.delete(keyId);
          throw err;
        },
      );
      this.loading.set(keyId, pending);
    }
    return pending;
  }

  /** POST /api/token: the principal of a key id and secret that match an active key, else undefined. */
  async authenticate(keyId: string, secret: string): Promise<Principal | undefined> {
    // One path whatever the key id: a store read (the admin key's too) and one derivation (a decoy for an unknown id).
    const key = await this.store.getAccessKey(keyId);
    const admin = this.admin && keyId === this.admin.principal.keyId ? this.admin : undefined;
    if (!(await this.hasher.verify(secret, admin ? admin.secretHash : key?.secretHash))) return undefined;
    return admin ? admin.principal : this.load(keyId);
  }

  /** The stored form of a new key's secret, hashed within the same slots as token requests. */
  hashSecret(secret: string): Promise<string> {
    return this.hasher.hash(secret);
  }

  /** Whether `keyId` is the environment's admin key (the API cannot change it). */
  isEnvironmentKey(keyId: string): boolean {
    return this.admin?.principal.keyId === keyId;
  }

  /** Forgets every cached principal: called on every change made through this replica. */
  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }

  private async load(keyId: string): Promise<Principal | undefined> {
    const key = await this.store.getAccessKey(keyId);
    if (!key || key.status !== 'ACTIVE') return undefined;
    const app = await this.store.getApplication(key.applicationId);
    if (!app) return undefined;
    return { keyId, applicationId: app.id, applicationName: app.name, roles: app.roles };
  }
}
