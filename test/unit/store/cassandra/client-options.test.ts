import { clientOptions, RECONNECT_MAX_MS } from '../../../../src/store/cassandra';
import { nativePortOf } from '../../../../src/store/cassandra/config';

// The driver reaches the nodes it discovers in system.peers on its one protocol port, not on the contact point's.

const base = { localDataCenter: 'datacenter1', keyspace: 'baton', migrate: false };

describe('the native port of the cluster', () => {
  test('a port named by every contact point is the port the driver uses for every node', () => {
    const options = clientOptions({ ...base, contactPoints: ['127.0.0.1:9142', '127.0.0.2:9142'] });
    expect(options.protocolOptions?.port).toBe(9142);
  });

  test('contact points without a port, or with the default one, keep the driver default', () => {
    const options = clientOptions({ ...base, contactPoints: ['127.0.0.1', 'cassandra-0.cassandra'] });
    expect(options.protocolOptions?.port).toBeUndefined();
    expect(nativePortOf(['10.0.0.1', '10.0.0.2:9042'])).toBe(9042);
  });

  test('contact points naming different ports are refused, naming both', () => {
    expect(() => nativePortOf(['127.0.0.1:9042', '127.0.0.2:9142'])).toThrow(/9042, 9142/);
  });
});

describe('reconnection to a lost node', () => {
  test('the delay between attempts stops growing at a few seconds, so a healed partition is noticed soon', () => {
    const schedule = clientOptions({ ...base, contactPoints: ['127.0.0.1'] }).policies!.reconnection!.newSchedule();
    const delays = Array.from({ length: 12 }, () => schedule.next().value as number);
    expect(Math.max(...delays)).toBeLessThanOrEqual(RECONNECT_MAX_MS);
    expect(RECONNECT_MAX_MS).toBeLessThanOrEqual(5000);
  });
});
