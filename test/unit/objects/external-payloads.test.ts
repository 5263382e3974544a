import { ExternalPayloads } from '../../../src/objects/external-payloads';
import type { ObjectStore } from '../../../src/objects/object-store';

/** An object store in memory that counts its writes. */
function memoryStore(): ObjectStore & { puts: string[]; objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  const puts: string[] = [];
  return {
    objects,
    puts,
    put: async (key, body) => void (puts.push(key), objects.set(key, body)),
    get: async (key) => objects.get(key),
    remove: async (key) => void objects.delete(key),
    list: async (prefix, limit, after) =>
      [...objects.keys()]
        .filter((k) => k.startsWith(prefix) && (after === undefined || k > after))
        .sort()
        .slice(0, limit),
    signedUrl: async (key, op) => `memory://${op}/${key}`,
    close: async () => undefined,
  };
}

const settings = { workflowThresholdBytes: 50, taskThresholdBytes: 50, workflowMaxBytes: 1000, taskMaxBytes: 1000, linkTtlSeconds: 60, maxJsonDepth: 16 };
const keyOf = (d: string): string => `payloads/executions/w/workflow-input-${d.slice(0, 32)}.json`;
const big = { text: 'y'.repeat(100) };

describe('where a payload is kept (ExternalPayloads.place)', () => {
  it('keeps a payload under the threshold inline and writes nothing', async () => {
    const store = memoryStore();
    expect(await new ExternalPayloads(store, settings).place({ a: 1 }, undefined, 50, keyOf)).toBeUndefined();
    expect(store.puts).toEqual([]);
  });

  it('writes a payload over the threshold once under its content key; unchanged it keeps the path without writing again', async () => {
    const store = memoryStore();
    const payloads = new ExternalPayloads(store, settings);
    const path = await payloads.place(big, undefined, 50, keyOf);
    expect(path).toMatch(/^payloads\/executions\/w\/workflow-input-[0-9a-f]{32}\.json$/);
    expect(JSON.parse(store.objects.get(path!)!.toString())).toEqual(big);
    expect(await payloads.place({ ...big }, path, 50, keyOf)).toBe(path);
    expect(store.puts).toEqual([path]);
  });

  it('moves a changed payload to a new key, and back inline once small', async () => {
    const store = memoryStore();
    const payloads = new ExternalPayloads(store, settings);
    const first = await payloads.place(big, undefined, 50, keyOf);
    const second = await payloads.place({ text: 'z'.repeat(100) }, first, 50, keyOf);
    expect(second).not.toBe(first);
    expect(await payloads.place({}, second, 50, keyOf)).toBeUndefined();
  });

  it("keeps a client's path whose content it has not seen yet once it reads the same payload there (another replica's upload)", async () => {
    const store = memoryStore();
    store.objects.set('payloads/task/output/u.json', Buffer.from(JSON.stringify(big, null, 2)));
    const payloads = new ExternalPayloads(store, settings);
    expect(await payloads.place(big, 'payloads/task/output/u.json', 50, keyOf)).toBe('payloads/task/output/u.json');
    expect(store.puts).toEqual([]);
  });
});
