import { randomUUID } from 'node:crypto';
import { jsonDepthExceeds } from '../api/json-depth';
import { Errors } from '../model/named-errors';
import type { LinkOperation } from './link-signature';
import type { ObjectStore } from './object-store';
import { executionPayloadPrefix, isPayloadPath, payloadDigest, uploadKey, type PayloadType } from './payload-keys';

// Conductor's external payload storage over the object store: the locations clients upload to and
// download from, the payloads a start or a task update names by path, and the payloads Baton keeps
// outside an execution row above a threshold (src/objects/externalizing-execution-store.ts).

export interface ExternalPayloadSettings {
  /** Above this many bytes of JSON a workflow input or output is stored outside the row. */
  workflowThresholdBytes: number;
  /** The same for a task's input or output. */
  taskThresholdBytes: number;
  /** Largest payload a client may name by path (BATON_WORKFLOW_PAYLOAD_MAX_BYTES, BATON_TASK_PAYLOAD_MAX_BYTES). */
  workflowMaxBytes: number;
  taskMaxBytes: number;
  /** How long a location's link stays valid. */
  linkTtlSeconds: number;
  maxJsonDepth: number;
}

export interface ExternalStorageLocation {
  uri: string;
  path: string;
}

/** Paths whose content digest is known, at most this many (oldest forgotten first). */
const REMEMBERED = 10_000;

export class ExternalPayloads {
  private readonly digests = new Map<string, string>();

  constructor(
    readonly objects: ObjectStore,
    readonly settings: ExternalPayloadSettings,
    private readonly newId: () => string = randomUUID,
  ) {}

  /**
   * Conductor's ExternalStorageLocation: WRITE hands out a fresh key under payloads/ (a path the client
   * names is not taken: a client never chooses what it overwrites); READ a link to a payload path.
   */
  async location(operation: LinkOperation, type: PayloadType, path: string | undefined): Promise<ExternalStorageLocation> {
    if (operation === 'WRITE') {
      const key = uploadKey(type, this.newId());
      return { uri: await this.objects.signedUrl(key, 'WRITE', this.settings.linkTtlSeconds), path: key };
    }
    if (!path || !isPayloadPath(path)) throw Errors.PAYLOAD_PATH_INVALID(JSON.stringify(path ?? ''));
    return { uri: await this.objects.signedUrl(path, 'READ', this.settings.linkTtlSeconds), path };
  }

  /** The payload a start or an update names by path: a 400 when there is none or it is no JSON object, a 413 above `maxBytes`. */
  async read(path: string, field: string, maxBytes: number): Promise<Record<string, unknown>> {
    if (!isPayloadPath(path)) throw Errors.PAYLOAD_FIELD_PATH_INVALID(field, JSON.stringify(path));
    const body = await this.objects.get(path);
    if (!body) throw Errors.PAYLOAD_MISSING(path, field);
    if (body.length > maxBytes) throw Errors.EXTERNAL_PAYLOAD_TOO_LARGE(path, body.length, maxBytes);
    const value = parseObject(body);
    if (!value) throw Errors.PAYLOAD_NOT_OBJECT(path, field);
    if (jsonDepthExceeds(value, this.settings.maxJsonDepth)) throw Errors.PAYLOAD_TOO_DEEP(path, this.settings.maxJsonDepth);
    this.remember(path, payloadDigest(JSON.stringify(value)));
    return value;
  }

  /**
   * Where a payload is kept: undefined inline in the row, else the path of its object (written when
   * needed). `current` is the path the record names now; it stays when it still holds this content.
   */
  async place(
    payload: Record<string, unknown> | undefined,
    current: string | undefined,
    thresholdBytes: number,
    keyOf: (digest: string) => string,
  ): Promise<string | undefined> {
    const text = JSON.stringify(payload ?? {});
    const size = Buffer.byteLength(text, 'utf8');
    if (current === undefined && size <= thresholdBytes) return undefined;
    const digest = payloadDigest(text);
    if (current !== undefined && (await this.digestOf(current)) === digest) return current;
    if (size <= thresholdBytes) return undefined;
    const key = keyOf(digest);
    if (this.digests.get(key) !== digest) {
      await this.objects.put(key, Buffer.from(text, 'utf8'), 'application/json');
      this.remember(key, digest);
    }
    return key;
  }

  /** The payload stored at a path, or undefined when the object is gone or unreadable. */
  async fetch(path: string): Promise<Record<string, unknown> | undefined> {
    const body = isPayloadPath(path) ? await this.objects.get(path) : undefined;
    const value = body && parseObject(body);
    if (value) this.remember(path, payloadDigest(JSON.stringify(value)));
    return value;
  }

  /** Removes the objects Baton wrote for an execution and the uploads it names. */
  async removeExecution(workflowId: string, named: Iterable<string>): Promise<void> {
    for (const path of new Set(named)) if (isPayloadPath(path)) await this.objects.remove(path);
    const prefix = executionPayloadPrefix(workflowId);
    for (let after: string | undefined; ;) {
      const keys = await this.objects.list(prefix, 1000, after);
      if (keys.length === 0) return;
      for (const key of keys) await this.objects.remove(key);
      after = keys[keys.length - 1];
    }
  }

  private async digestOf(path: string): Promise<string | undefined> {
    const known = this.digests.get(path);
    if (known !== undefined) return known;
    await this.fetch(path);
    return this.digests.get(path);
  }

  private remember(path: string, digest: string): void {
    this.digests.delete(path);
    this.digests.set(path, digest);
    if (this.digests.size > REMEMBERED) this.digests.delete(this.digests.keys().next().value!);
  }
}

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
