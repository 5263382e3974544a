import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessDirectory, ADMIN_APPLICATION_ID } from '../../../src/auth/access-directory';
import { ApplicationService, MAX_KEYS_PER_APPLICATION } from '../../../src/auth/application-service';
import { ApiError } from '../../../src/services/errors';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';

// The application service and the directory of principals over a real SQLite metadata store.

let dir: string;
let stores: SqliteStores;
let now = 1_000_000;
const clock = () => now;
const ADMIN = { id: 'root', secret: 'correct horse battery staple' };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-auth-'));
  stores = openSqliteStores(dir);
});
afterEach(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setup(cacheMs = 60_000) {
  const directory = await AccessDirectory.create(stores.metadata, { adminKey: ADMIN, cacheMs, now: clock });
  return { directory, apps: new ApplicationService(stores.metadata, directory, clock) };
}

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: ApiError) => e.status,
  );

describe('the environment admin key', () => {
  test('authenticates with its secret only, is ADMIN, and is not a stored record', async () => {
    const { directory, apps } = await setup();
    expect(await directory.authenticate('root', ADMIN.secret)).toMatchObject({ keyId: 'root', applicationId: ADMIN_APPLICATION_ID, roles: ['ADMIN'] });
    expect(await directory.authenticate('root', 'wrong secret entirely')).toBeUndefined();
    expect(directory.principal('root')).toMatchObject({ roles: ['ADMIN'] });
    expect(directory.isEnvironmentKey('root')).toBe(true);
    expect(await apps.list()).toEqual([]);
    expect(await status(apps.byAccessKey('root'))).toBe(404);
    expect(JSON.stringify(await stores.metadata.listApplications())).not.toContain(ADMIN.secret);
  });
});

describe('applications and keys', () => {
  test('a key authenticates once its application has roles; its secret is shown once and stored hashed', async () => {
    const { directory, apps } = await setup();
    const app = await apps.create('billing workers', 'app:admin');
    expect(app).toMatchObject({ name: 'billing workers', createdBy: 'app:admin', createTime: now, roles: [], tags: [] });
    const key = await apps.createKey(app.id);
    expect(await apps.keys(app.id)).toEqual([{ id: key.id, createdAt: now, status: 'ACTIVE' }]);
    const stored = await stores.metadata.getAccessKey(key.id);
    expect(JSON.stringify(stored)).not.toContain(key.secret);

    expect(await directory.authenticate(key.id, key.secret)).toEqual({ keyId: key.id, applicationId: app.id, applicationName: 'billing workers', roles: [] });
    expect(await directory.authenticate(key.id, 'not the secret')).toBeUndefined();
    expect(await directory.authenticate('no-such-key', key.secret)).toBeUndefined();

    now += 5;
    const withRole = await apps.addRole(app.id, 'WORKER', 'app:admin');
    expect(withRole).toMatchObject({ roles: ['WORKER'], updateTime: now });
    expect(await apps.addRole(app.id, 'WORKER', 'app:admin')).toMatchObject({ roles: ['WORKER'] });
    expect(await directory.principal(key.id)).toMatchObject({ roles: ['WORKER'] });
    expect(await apps.byAccessKey(key.id)).toMatchObject({ id: app.id });
  });

  test('disabling a key, removing a role, deleting a key or the application take effect at once on this replica', async () => {
    const { directory, apps } = await setup();
    const app = await apps.create('a', 'x');
    await apps.addRole(app.id, 'WORKFLOW_MANAGER', 'x');
    const key = await apps.createKey(app.id);
    expect(await directory.principal(key.id)).toMatchObject({ roles: ['WORKFLOW_MANAGER'] });

    expect(await apps.toggleKey(app.id, key.id)).toEqual({ id: key.id, createdAt: now, status: 'INACTIVE' });
    expect(await directory.principal(key.id)).toBeUndefined();
    expect(await directory.authenticate(key.id, key.secret)).toBeUndefined();
    expect((await apps.toggleKey(app.id, key.id)).status).toBe('ACTIVE');
    expect(await directory.principal(key.id)).toMatchObject({ roles: ['WORKFLOW_MANAGER'] });

    await apps.removeRole(app.id, 'WORKFLOW_MANAGER', 'x');
    expect(await directory.principal(key.id)).toMatchObject({ roles: [] });

    await apps.deleteKey(app.id, key.id);
    expect(await directory.principal(key.id)).toBeUndefined();

    const other = await apps.createKey(app.id);
    expect(await directory.principal(other.id)).toBeDefined();
    await apps.delete(app.id);
    expect(await directory.principal(other.id)).toBeUndefined();
    expect(await stores.metadata.getAccessKey(other.id)).toBeUndefined();
  });

  test('changes made on another replica show once the cache time has passed', async () => {
    const { directory, apps } = await setup(5000);
    const app = await apps.create('a', 'x');
    const key = await apps.createKey(app.id);
    await apps.addRole(app.id, 'READ_ONLY', 'x');
    expect(await directory.principal(key.id)).toMatchObject({ roles: ['READ_ONLY'] });
    // Another replica disables the key: straight in the store.
    await stores.metadata.putAccessKey({ ...(await stores.metadata.getAccessKey(key.id))!, status: 'INACTIVE' });
    expect(directory.principal(key.id)).toMatchObject({ roles: ['READ_ONLY'] }); // cached, synchronously
    now += 5000;
    expect(await directory.principal(key.id)).toBeUndefined();
  });

  test('bad requests are 4xx: unknown ids 404, unknown roles 400, too many keys 409', async () => {
    const { apps } = await setup();
    const app = await apps.create('a', 'x');
    expect(await status(apps.get('nope'))).toBe(404);
    expect(await status(apps.rename('nope', 'b', 'x'))).toBe(404);
    expect(await status(apps.delete('nope'))).toBe(404);
    expect(await status(apps.createKey('nope'))).toBe(404);
    expect(await status(apps.keys('nope'))).toBe(404);
    expect(await status(apps.addRole(app.id, 'SUPERUSER', 'x'))).toBe(400);
    expect(await status(apps.addRole('nope', 'ADMIN', 'x'))).toBe(404);
    expect(await status(apps.toggleKey(app.id, 'nope'))).toBe(404);
    const elsewhere = await apps.createKey((await apps.create('b', 'x')).id);
    expect(await status(apps.deleteKey(app.id, elsewhere.id))).toBe(404); // a key of another application
    for (let i = 0; i < MAX_KEYS_PER_APPLICATION; i++) await apps.createKey(app.id);
    expect(await status(apps.createKey(app.id))).toBe(409);
  });

  test('tags are added once per key and value, and removed', async () => {
    const { apps } = await setup();
    const app = await apps.create('a', 'x');
    await apps.addTags(
      app.id,
      [
        { key: 'team', value: 'billing' },
        { key: 'env', value: 'prod' },
      ],
      'x',
    );
    await apps.addTags(app.id, [{ key: 'team', value: 'billing' }], 'x');
    expect(await apps.tags(app.id)).toEqual([
      { key: 'env', value: 'prod' },
      { key: 'team', value: 'billing' },
    ]);
    await apps.removeTags(app.id, [{ key: 'env', value: 'prod' }], 'x');
    expect(await apps.tags(app.id)).toEqual([{ key: 'team', value: 'billing' }]);
  });
});
