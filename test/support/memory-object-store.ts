import type { ObjectStore } from '../../src/objects/object-store';

/** An ObjectStore in a Map, for tests of code that writes to one (the adapters have their own contract tests). */
export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, Buffer>();

  async put(key: string, body: Buffer): Promise<void> {
    this.objects.set(key, Buffer.from(body));
  }

  async get(key: string): Promise<Buffer | undefined> {
    return this.objects.get(key);
  }

  async remove(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async list(prefix: string, limit: number, startAfter?: string): Promise<string[]> {
    return [...this.objects.keys()]
      .filter((k) => k.startsWith(prefix) && (startAfter === undefined || k > startAfter))
      .sort()
      .slice(0, limit);
  }

  async signedUrl(key: string): Promise<string> {
    return `memory:${key}`;
  }

  async close(): Promise<void> {}
}
