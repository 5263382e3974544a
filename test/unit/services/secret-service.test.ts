import { randomBytes } from 'node:crypto';
import { openSqliteStores } from '../../../src/store/sqlite';
import { SecretService } from '../../../src/services/secret-service';
import { tempDir } from '../../support/temp-dirs';

// The service over the real SQLite store: sealing on the way in, revealing references, and the
// distributed profile's refusal while no key is configured.

const stores = () => openSqliteStores(tempDir('baton-secret-svc-'));

describe('SecretService', () => {
  test('reveal replaces references with values, lists missing names, and leaves inputs without references alone', async () => {
    const s = stores();
    const svc = new SecretService(s.secrets, { key: randomBytes(32) }, () => 1000);
    await svc.put('token', 'T');
    const input = { h: 'Bearer ${workflow.secrets.token}', m: '${workflow.secrets.nope}', n: 1 };
    expect(await svc.reveal(input)).toEqual({ input: { h: 'Bearer T', m: '${workflow.secrets.nope}', n: 1 }, values: ['T'], missing: ['nope'] });
    const plain = { a: 'x' };
    expect((await svc.reveal(plain)).input).toBe(plain);
    expect((await s.secrets.getSecret('token'))?.sealed).toMatch(/^v1\./);
    await s.close();
  });

  test('without a key every value operation is a 503 naming the variable; names and existence still answer', async () => {
    const s = stores();
    const svc = new SecretService(s.secrets, { missing: 'secrets are not configured: set BATON_SECRETS_KEY' });
    await expect(svc.put('a', 'v')).rejects.toMatchObject({ status: 503, message: expect.stringContaining('BATON_SECRETS_KEY') });
    await expect(svc.reveal({ x: '${workflow.secrets.a}' })).resolves.toMatchObject({ missing: ['a'] });
    expect(await svc.names()).toEqual([]);
    expect(await svc.exists('a')).toBe(false);
    await s.close();
  });
});
