import { ConfigError, loadConfig } from '../../src/config';
import { reviveBatonError } from '../../src/composition/remote-errors';
import { EngineError } from '../../src/engine/errors';
import { reviveActorError, serializeActorError } from '../../src/runtime/dapr/actor-errors';
import { ApiError } from '../../src/services/errors';
import { PayloadTooLargeError, StaleWriteError } from '../../src/store/ports';
import { ZodError } from 'zod';
import { toErrorBody } from '../../src/api/errors';
import { BatonError } from '../../src/model/errors';
import { ActorDeactivated, HostStopping } from '../../src/runtime/ports';
import { asBatonError } from '../../src/services/error-catalogue';

describe('profile-dependent configuration', () => {
  const distributed = { BATON_PROFILE: 'distributed', CASSANDRA_CONTACT_POINTS: 'cass:9042', ELASTICSEARCH_URL: 'http://es:9200' };

  test('embedded: no sweep, cache until changed, SQLite store and index', () => {
    expect(loadConfig({})).toMatchObject({ BATON_SWEEP_INTERVAL_MS: 0, BATON_METADATA_CACHE_TTL_MS: 0, BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite' });
  });

  test('distributed: recovery scan and cache TTL on, sweep off, Cassandra and Elasticsearch by default; explicit values win', () => {
    expect(loadConfig(distributed)).toMatchObject({
      BATON_SWEEP_INTERVAL_MS: 0,
      BATON_RECOVERY_SCAN_INTERVAL_MS: 60_000,
      BATON_METADATA_CACHE_TTL_MS: 10_000,
      BATON_STORE: 'cassandra',
      BATON_INDEX: 'elasticsearch',
    });
    expect(loadConfig({})).toMatchObject({ BATON_RECOVERY_SCAN_INTERVAL_MS: 0 });
    expect(loadConfig({ ...distributed, BATON_SWEEP_INTERVAL_MS: '500', BATON_METADATA_CACHE_TTL_MS: '2000' })).toMatchObject({
      BATON_SWEEP_INTERVAL_MS: 500,
      BATON_METADATA_CACHE_TTL_MS: 2000,
    });
    expect(loadConfig({ BATON_PROFILE: 'distributed', BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite' })).toMatchObject({
      BATON_STORE: 'sqlite',
      BATON_INDEX: 'sqlite',
    });
  });

  test('open documents are held 5 s for Elasticsearch and not at all for SQLite; an explicit value wins', () => {
    expect(loadConfig(distributed)).toMatchObject({ BATON_INDEX_OPEN_HOLD_MS: 5000 });
    expect(loadConfig({ ...distributed, BATON_INDEX: 'sqlite' })).toMatchObject({ BATON_INDEX_OPEN_HOLD_MS: 0 });
    expect(loadConfig({})).toMatchObject({ BATON_INDEX_OPEN_HOLD_MS: 0 });
    expect(loadConfig({ ...distributed, BATON_INDEX_OPEN_HOLD_MS: '0' })).toMatchObject({ BATON_INDEX_OPEN_HOLD_MS: 0 });
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

  test("the actor call drain fits placement's dissemination round, or the start stops", () => {
    expect(loadConfig(distributed)).toMatchObject({ BATON_DAPR_CALL_DRAIN_MS: 2000, BATON_DAPR_PLACEMENT_DISSEMINATE_MS: 8000 });
    const refused = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(refused({ ...distributed, BATON_DAPR_CALL_DRAIN_MS: '10000' })).toMatch(
      /BATON_DAPR_CALL_DRAIN_MS: an actor call drain of 10000 ms does not fit placement's 8000 ms/,
    );
    expect(loadConfig({ ...distributed, BATON_DAPR_CALL_DRAIN_MS: '10000', BATON_DAPR_PLACEMENT_DISSEMINATE_MS: '20000' }).BATON_DAPR_CALL_DRAIN_MS).toBe(
      10_000,
    );
  });
});

describe('errors of remote actor turns come back with their catalogue entry', () => {
  // As on the wire: the actor's turn wrapper (wireCalls) catalogues the error, the caller's host revives it.
  const roundTrip = (e: Error): Error => reviveActorError(serializeActorError(asBatonError(e) ?? e), reviveBatonError);

  test('each error the catalogue knows answers the same status at the API on both sides', () => {
    const errors = [
      new EngineError('conflict', 'already running'),
      new EngineError('notFound', 'no such workflow'),
      new ApiError(404, 'no such task', [{ path: 'x', message: 'bad' }]),
      new PayloadTooLargeError('too big'),
      new StaleWriteError('wf-1', 3),
      new ZodError([{ code: 'custom', path: ['a'], message: 'bad a', input: 1 }]),
    ];
    for (const e of errors) {
      const back = roundTrip(e);
      expect(back).toBeInstanceOf(BatonError);
      expect(back.name).toBe(e.name);
      expect(toErrorBody(back)).toEqual(toErrorBody(e));
    }
    expect(roundTrip(new StaleWriteError('wf-1', 3))).toMatchObject({ status: 503, code: 'STALE_WRITE', workflowId: 'wf-1', expectedRev: 3 });
    expect(roundTrip(new EngineError('conflict', 'x'))).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  test('the runtime revives its own classes natively', () => {
    expect(roundTrip(new ActorDeactivated('moved'))).toBeInstanceOf(ActorDeactivated);
    expect(roundTrip(new HostStopping())).toBeInstanceOf(HostStopping);
  });

  test('unknown errors stay generic errors with their properties (a 500 at the API)', () => {
    const other = roundTrip(Object.assign(new Error('boom'), { code: 'E1' }));
    expect(other).not.toBeInstanceOf(BatonError);
    expect(other).toMatchObject({ message: 'boom', code: 'E1' });
    expect(toErrorBody(other).status).toBe(500);
  });
});
