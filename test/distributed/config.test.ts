import { ConfigError, loadConfig } from '../../src/config';
import { reviveBatonError } from '../../src/composition/remote-errors';
import { EngineError } from '../../src/engine/errors';
import { reviveActorError, serializeActorError } from '../../src/runtime/dapr/actor-errors';
import { ApiError } from '../../src/services/errors';
import { PayloadTooLargeError, StaleWriteError } from '../../src/store/ports';

describe('profile-dependent configuration', () => {
  const distributed = { BATON_PROFILE: 'distributed', CASSANDRA_CONTACT_POINTS: 'cass:9042', ELASTICSEARCH_URL: 'http://es:9200' };

  test('embedded: no sweep, cache until changed, SQLite store and index', () => {
    expect(loadConfig({})).toMatchObject({ BATON_SWEEP_INTERVAL_MS: 0, BATON_METADATA_CACHE_TTL_MS: 0, BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite' });
  });

  test('distributed: recovery scan and cache TTL on, sweep off, Cassandra and Elasticsearch by default; explicit values win', () => {
    expect(loadConfig(distributed)).toMatchObject({ BATON_SWEEP_INTERVAL_MS: 0, BATON_RECOVERY_SCAN_INTERVAL_MS: 60_000, BATON_METADATA_CACHE_TTL_MS: 10_000, BATON_STORE: 'cassandra', BATON_INDEX: 'elasticsearch' });
    expect(loadConfig({})).toMatchObject({ BATON_RECOVERY_SCAN_INTERVAL_MS: 0 });
    expect(loadConfig({ ...distributed, BATON_SWEEP_INTERVAL_MS: '500', BATON_METADATA_CACHE_TTL_MS: '2000' })).toMatchObject({ BATON_SWEEP_INTERVAL_MS: 500, BATON_METADATA_CACHE_TTL_MS: 2000 });
    expect(loadConfig({ BATON_PROFILE: 'distributed', BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite' })).toMatchObject({ BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite' });
  });

  test('a missing server or a bad combination stops the start naming the variable', () => {
    const message = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(message({ BATON_PROFILE: 'distributed' })).toMatch(/CASSANDRA_CONTACT_POINTS:[^\n]*\n\s+ELASTICSEARCH_URL:/);
    expect(message({ ...distributed, BATON_METADATA_CACHE_TTL_MS: '0' })).toContain('BATON_METADATA_CACHE_TTL_MS: must be above 0');
    expect(message({ BATON_STORE: 'cassandra' })).toContain('BATON_STORE: the embedded profile stores in SQLite only');
    expect(message({ BATON_PROFILE: 'distributed', BATON_STORE: 'mysql' })).toContain('BATON_STORE');
  });
});

describe('errors of remote actor turns come back as Baton classes', () => {
  const roundTrip = (e: Error): Error => reviveActorError(serializeActorError(e), reviveBatonError);

  test('each class the API maps to a status code', () => {
    const engine = roundTrip(new EngineError('conflict', 'already running'));
    expect(engine).toBeInstanceOf(EngineError);
    expect(engine).toMatchObject({ kind: 'conflict', message: 'already running' });
    const api = roundTrip(new ApiError(404, 'no such task', [{ path: 'x', message: 'bad' }]));
    expect(api).toBeInstanceOf(ApiError);
    expect(api).toMatchObject({ status: 404, validationErrors: [{ path: 'x', message: 'bad' }] });
    expect(roundTrip(new PayloadTooLargeError('too big'))).toBeInstanceOf(PayloadTooLargeError);
    const stale = roundTrip(new StaleWriteError('wf-1', 3));
    expect(stale).toBeInstanceOf(StaleWriteError);
    expect(stale).toMatchObject({ workflowId: 'wf-1', expectedRev: 3 });
  });

  test('unknown names stay generic errors with their properties', () => {
    const other = roundTrip(Object.assign(new Error('boom'), { code: 'E1' }));
    expect(other).not.toBeInstanceOf(EngineError);
    expect(other).toMatchObject({ message: 'boom', code: 'E1' });
  });
});
