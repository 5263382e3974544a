import { randomUUID } from 'node:crypto';
import { InvalidObjectKeyError } from '../../src/objects/object-keys';
import type { ObjectStore } from '../../src/objects/object-store';

/** The definition of an ObjectStore: every adapter runs this one list. Stores may be shared, so keys are fresh. */
export interface ObjectStoreUnderTest {
  store: ObjectStore;
  /** The same store with its clock at `now` (links signed then), for expired links. */
  storeAt(now: () => number): ObjectStore;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;

/** A link with one character of its signature changed. */
function tampered(url: string): string {
  const u = new URL(url);
  for (const name of ['signature', 'X-Amz-Signature']) {
    const v = u.searchParams.get(name);
    if (v) {
      u.searchParams.set(name, (v[0] === '0' ? '1' : '0') + v.slice(1));
      return u.toString();
    }
  }
  throw new Error(`no signature in ${url}`);
}

export function describeObjectStoreContract(adapter: string, open: () => Promise<ObjectStoreUnderTest>): void {
  describe(`ObjectStore contract: ${adapter}`, () => {
    let u: ObjectStoreUnderTest;
    let root: string;
    beforeAll(async () => {
      u = await open();
    }, 120_000);
    beforeEach(() => {
      root = `contract/${randomUUID()}`;
    });
    afterAll(async () => {
      await u?.cleanup();
    });

    it('puts and gets an object byte for byte', async () => {
      const body = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
      await u.store.put(`${root}/bin.dat`, body);
      expect(await u.store.get(`${root}/bin.dat`)).toEqual(body);
    });

    it('replaces an object whole', async () => {
      await u.store.put(`${root}/a.json`, Buffer.from('{"first":"a much longer body than the second"}'), 'application/json');
      await u.store.put(`${root}/a.json`, Buffer.from('{"second":2}'), 'application/json');
      expect((await u.store.get(`${root}/a.json`))?.toString()).toBe('{"second":2}');
    });

    it('answers undefined for a missing key, and removes (a missing key too) without error', async () => {
      expect(await u.store.get(`${root}/missing.json`)).toBeUndefined();
      await u.store.put(`${root}/x/y.json`, Buffer.from('1'));
      await u.store.remove(`${root}/x/y.json`);
      expect(await u.store.get(`${root}/x/y.json`)).toBeUndefined();
      await expect(u.store.remove(`${root}/x/y.json`)).resolves.toBeUndefined();
      expect(await u.store.list(`${root}/`, 10)).toEqual([]);
    });

    it('lists keys under a prefix in key order, paged by startAfter', async () => {
      // '-' and '.' sort before '/', so a key beside a "directory" of the same name comes first.
      const keys = ['p/a-c', 'p/a.x', 'p/a/b', 'p/a/c/d', 'p/b', 'p/b0', 'q/z'].map((k) => `${root}/${k}`);
      for (const k of [...keys].reverse()) await u.store.put(k, Buffer.from(k));
      const expected = keys.filter((k) => k.startsWith(`${root}/p/`)).sort();
      expect(await u.store.list(`${root}/p/`, 100)).toEqual(expected);
      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await u.store.list(`${root}/p/`, 2, after);
        if (page.length === 0) break;
        pages.push(page);
        after = page[page.length - 1];
      }
      expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
      expect(pages.flat()).toEqual(expected);
      expect(await u.store.list(`${root}/p/a`, 100)).toEqual(expected.slice(0, 4));
      expect(await u.store.list(`${root}/p/a/`, 100)).toEqual([`${root}/p/a/b`, `${root}/p/a/c/d`]);
      expect(await u.store.list(`${root}/p/`, 100, `${root}/p/a/b`)).toEqual(expected.slice(3));
    });

    it('refuses keys outside the documented character set, with a named error', async () => {
      for (const key of ['../escape', '/absolute', `${root}//double`, `${root}/../up`, `${root}/.hidden`, `${root}/sp ace`, `${root}/`, '']) {
        await expect(u.store.put(key, Buffer.from('x'))).rejects.toBeInstanceOf(InvalidObjectKeyError);
        await expect(u.store.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      }
      await expect(u.store.signedUrl('../x', 'READ', 60)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    });

    it('serves a signed READ link to a plain fetch, and takes a signed WRITE link', async () => {
      await u.store.put(`${root}/read.json`, Buffer.from('{"big":true}'));
      const read = await fetch(await u.store.signedUrl(`${root}/read.json`, 'READ', 60));
      expect(read.status).toBe(200);
      expect(await read.text()).toBe('{"big":true}');

      const write = await fetch(await u.store.signedUrl(`${root}/write.json`, 'WRITE', 60), { method: 'PUT', body: '{"written":1}' });
      expect(write.status).toBe(200);
      expect((await u.store.get(`${root}/write.json`))?.toString()).toBe('{"written":1}');
    });

    it('refuses an expired link, and a tampered one, changing nothing', async () => {
      await u.store.put(`${root}/kept.json`, Buffer.from('kept'));
      const past = u.storeAt(() => Date.now() - HOUR);
      expect((await fetch(await past.signedUrl(`${root}/kept.json`, 'READ', 60))).status).toBe(403);
      const expiredWrite = await fetch(await past.signedUrl(`${root}/kept.json`, 'WRITE', 60), { method: 'PUT', body: 'changed' });
      expect(expiredWrite.status).toBe(403);

      expect((await fetch(tampered(await u.store.signedUrl(`${root}/kept.json`, 'READ', 60)))).status).toBe(403);
      const tamperedWrite = await fetch(tampered(await u.store.signedUrl(`${root}/kept.json`, 'WRITE', 60)), { method: 'PUT', body: 'changed' });
      expect(tamperedWrite.status).toBe(403);
      // A link for one object does not open another, nor does a READ link write.
      const other = (await u.store.signedUrl(`${root}/other.json`, 'WRITE', 60)).replace('other.json', 'kept.json');
      expect((await fetch(other, { method: 'PUT', body: 'changed' })).status).toBe(403);
      expect((await fetch(await u.store.signedUrl(`${root}/kept.json`, 'READ', 60), { method: 'PUT', body: 'changed' })).status).toBe(403);
      expect((await u.store.get(`${root}/kept.json`))?.toString()).toBe('kept');
    });
  });
}
