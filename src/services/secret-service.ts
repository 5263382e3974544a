import { SECRET_NAME, SecretValueSchema, type StoredSecret } from '../model/secrets';
import { addTags, removeTags, type Tag } from '../model/tags';
import { openSecret, sealSecret } from '../secrets/secret-cipher';
import type { SecretKeySource } from '../secrets/secret-key';
import { secretNamesIn, substituteSecrets } from '../secrets/secret-references';
import type { SecretStore } from '../store/ports';
import { checkRecordCount, DEFAULT_RECORD_CAPS } from './definition-limits';
import { Errors } from '../model/named-errors';

/** What a task input becomes where it leaves Baton: the input with secrets in, the values used (to redact echoes), the names not found. */
export interface RevealedInput<T> {
  input: T;
  values: string[];
  missing: string[];
}

/** Secrets: sealed on the way into the store, opened only for an admin's read and where a task input leaves Baton. */
export class SecretService {
  constructor(
    private readonly store: SecretStore,
    private readonly keySource: SecretKeySource,
    private readonly now: () => number = Date.now,
    /** BATON_MAX_SECRETS. */
    private readonly maxSecrets: number = DEFAULT_RECORD_CAPS.secrets,
  ) {}

  private key(): Buffer {
    // A server without a key cannot seal or open: its operator must configure one (not the caller's mistake).
    if ('missing' in this.keySource) throw Errors.SECRET_KEY_MISSING(this.keySource.missing);
    return this.keySource.key;
  }

  private checkName(name: string): void {
    if (!SECRET_NAME.test(name)) throw Errors.SECRET_NAME_INVALID();
  }

  private async existing(name: string): Promise<StoredSecret> {
    this.checkName(name);
    const s = await this.store.getSecret(name);
    if (!s) throw Errors.SECRET_NOT_FOUND(name);
    return s;
  }

  async put(name: string, value: unknown): Promise<void> {
    this.checkName(name);
    const parsed = SecretValueSchema.safeParse(value);
    // The message names the rule, never the value.
    if (!parsed.success) throw Errors.SECRET_VALUE_INVALID(name, parsed.error.issues[0]?.message ?? 'not a string');
    const sealed = sealSecret(this.key(), name, parsed.data);
    const before = await this.store.getSecret(name);
    if (!before) checkRecordCount('secrets', await this.store.countSecrets(this.maxSecrets), 1, this.maxSecrets);
    const t = this.now();
    await this.store.putSecret({ name, sealed, tags: before?.tags ?? [], createTime: before?.createTime ?? t, updateTime: t });
  }

  async get(name: string): Promise<string> {
    const s = await this.existing(name);
    return openSecret(this.key(), name, s.sealed);
  }

  async exists(name: string): Promise<boolean> {
    this.checkName(name);
    return (await this.store.getSecret(name)) !== undefined;
  }

  async names(): Promise<string[]> {
    return (await this.store.listSecrets()).map((s) => s.name);
  }

  async delete(name: string): Promise<void> {
    this.checkName(name);
    if (!(await this.store.deleteSecret(name))) throw Errors.SECRET_NOT_FOUND(name);
  }

  async tags(name: string): Promise<Tag[]> {
    return (await this.existing(name)).tags;
  }

  async addTags(name: string, tags: Tag[]): Promise<void> {
    const s = await this.existing(name);
    await this.store.putSecret({ ...s, tags: addTags(s.tags, tags), updateTime: this.now() });
  }

  async removeTags(name: string, tags: Tag[]): Promise<void> {
    const s = await this.existing(name);
    await this.store.putSecret({ ...s, tags: removeTags(s.tags, tags), updateTime: this.now() });
  }

  /** Every tag on a secret (for GET /api/metadata/tags). */
  async allTags(): Promise<Tag[]> {
    return (await this.store.listSecrets()).flatMap((s) => s.tags);
  }

  /** `input` with its `${workflow.secrets.NAME}` references replaced; names without a secret are listed in `missing` and left as written. */
  async reveal<T>(input: T): Promise<RevealedInput<T>> {
    const names = secretNamesIn(input);
    if (names.size === 0) return { input, values: [], missing: [] };
    const values = new Map<string, string>();
    const missing: string[] = [];
    for (const name of names) {
      const s = await this.store.getSecret(name);
      if (s) values.set(name, openSecret(this.key(), name, s.sealed));
      else missing.push(name);
    }
    return { input: substituteSecrets(input, values), values: [...values.values()], missing };
  }
}

/** The reason a task fails with when its input names secrets that do not exist (names only). */
export const missingSecretsReason = (missing: string[]): string =>
  `Secret${missing.length > 1 ? 's' : ''} not found: ${missing.join(', ')} (referenced as \${workflow.secrets.NAME} in the task input)`;
