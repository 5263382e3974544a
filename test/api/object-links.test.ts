import { DirectoryObjectStore } from '../../src/objects/directory-object-store';
import { objectsDir } from '../../src/objects/open-object-store';
import { signedLinkQuery } from '../../src/objects/link-signature';
import { ADMIN_KEY, raw, startAuthBaton, type AuthBaton } from '../support/auth-baton';

// GET|PUT /api/objects/{key}: the directory store's signed links, served with auth on and no bearer token.

const LINK_SECRET = 'api-test-link-secret-0123456789';
const MAX_BODY = 4096;

describe('signed object links on Baton (directory store, auth on)', () => {
  let b: AuthBaton;
  let store: DirectoryObjectStore;
  beforeAll(async () => {
    b = await startAuthBaton({
      BATON_AUTH: 'on',
      BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
      BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
      BATON_OBJECT_LINK_SECRET: LINK_SECRET,
      BATON_MAX_BODY_BYTES: String(MAX_BODY),
    });
    store = new DirectoryObjectStore({ dir: objectsDir(b.dataDir), linkKey: Buffer.from(LINK_SECRET), baseUrl: () => b.url });
  });
  afterAll(async () => {
    await b?.stop();
  });

  const pathOf = (url: string): string => url.slice(b.url.length);

  it('reads and writes through a link without a token', async () => {
    const write = await raw(b.port, 'PUT', pathOf(await store.signedUrl('payloads/t/one.json', 'WRITE', 60)), { body: { a: 1 } });
    expect(write.status).toBe(200);
    const read = await raw(b.port, 'GET', pathOf(await store.signedUrl('payloads/t/one.json', 'READ', 60)));
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toMatch(/^application\/json/);
    expect(read.body).toEqual({ a: 1 });
  });

  it('refuses the route without a link (403), a missing object (404), and a body over BATON_MAX_BODY_BYTES (413), as Conductor-style errors', async () => {
    const bare = await raw(b.port, 'GET', '/api/objects/payloads%2Ft%2Fone.json');
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ status: 403, message: expect.stringContaining('not valid') });
    const missing = await raw(b.port, 'GET', pathOf(await store.signedUrl('payloads/t/none.json', 'READ', 60)));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404 });
    const big = await raw(b.port, 'PUT', pathOf(await store.signedUrl('payloads/t/big.json', 'WRITE', 60)), { body: { x: 'y'.repeat(MAX_BODY) } });
    expect(big.status).toBe(413);
    expect(await store.get('payloads/t/big.json')).toBeUndefined();
  });

  it('refuses an unsigned PUT before reading its body, and changes nothing', async () => {
    const put = await raw(b.port, 'PUT', '/api/objects/payloads%2Ft%2Fone.json?expires=99999999999&signature=' + '0'.repeat(64), { body: { a: 2 } });
    expect(put.status).toBe(403);
    expect((await store.get('payloads/t/one.json'))?.toString()).toBe('{"a":1}');
  });

  it('refuses a key outside the character set (400) even when signed, and dot segments before any route (400)', async () => {
    const expires = Math.floor(Date.now() / 1000) + 60;
    const spaced = await raw(b.port, 'GET', `/api/objects/a%20b?${signedLinkQuery(Buffer.from(LINK_SECRET), 'READ', 'a b', expires)}`);
    expect(spaced.status).toBe(400);
    expect(spaced.body).toMatchObject({ status: 400, message: expect.stringContaining('Invalid object key') });
    const escape = await raw(b.port, 'GET', `/api/objects/..%2Fsecrets.key?${signedLinkQuery(Buffer.from(LINK_SECRET), 'READ', '../secrets.key', expires)}`);
    expect(escape.status).toBe(400);
    expect(escape.text).not.toMatch(/[A-Za-z0-9+/]{40,}=/);
  });
});
