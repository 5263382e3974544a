import { types } from 'cassandra-driver';
import type { PayloadLimits } from '../payload-limits';
import type { IndexLayout } from './rows';

// Settings of the Cassandra store, and their reading from environment variables.

export interface CassandraStoreConfig {
  contactPoints: string[];
  localDataCenter: string;
  keyspace: string;
  username?: string;
  password?: string;
  /** Consistency of reads and writes, e.g. LOCAL_QUORUM (default), QUORUM, EACH_QUORUM. */
  consistency?: string;
  /** Keyspace replication when migrations create it (see replicationClause); required then. */
  replication?: string;
  /** Apply pending migrations at start. */
  migrate: boolean;
  payloadLimits?: Partial<PayloadLimits>;
  layout?: Partial<IndexLayout>;
  /** TTL of event executions, seconds; 0 keeps them forever. Default 7 days. */
  eventExecutionTtlSeconds?: number;
  /** Delay before the driver sends a speculative copy of an idempotent request to another node, ms; 0 disables. */
  speculativeDelayMs?: number;
  /** Interval of the pass that seals the open indexes' past generations, ms; default 5 minutes, 0 disables. */
  indexMaintenanceMs?: number;
  /** Index writes that failed after a durable turn (repaired later), and failed maintenance passes: worth a warning. */
  onIndexError?: (err: unknown, workflowId?: string) => void;
}

/** Driver consistency code for a name such as LOCAL_QUORUM or localQuorum. */
export function consistencyOf(name: string): types.consistencies {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const code = (types.consistencies as unknown as Record<string, number | undefined>)[key];
  if (typeof code !== 'number') throw new Error(`unknown Cassandra consistency level: ${name}`);
  return code;
}

/**
 * The native-protocol port of the cluster, from contact points such as `10.0.0.1:9142`: the port they all
 * name, else undefined (the driver's 9042). The driver reaches every node it discovers in system.peers on
 * this one port, not on the contact point's, so a cluster on another port is unreachable beyond its contact
 * points unless it is set; contact points naming different ports cannot all be honoured and are refused.
 */
export function nativePortOf(contactPoints: string[]): number | undefined {
  const ports = new Set(
    contactPoints
      .map((p) => /:(\d+)$/.exec(p.trim())?.[1])
      .filter((p): p is string => p !== undefined)
      .map(Number),
  );
  if (ports.size > 1) throw new Error(`CASSANDRA_CONTACT_POINTS name different ports (${[...ports].join(', ')}): the driver reaches every node on one port`);
  const [port] = [...ports];
  return port;
}

/**
 * The replication map of CREATE KEYSPACE from a setting, which must be given (no silent default):
 * `1` ⇒ SimpleStrategy rf 1 (a development node); `dc1:3,dc2:3` ⇒ NetworkTopologyStrategy (production);
 * another bare number ⇒ SimpleStrategy with that factor; or a CQL map literal such as
 * `{'class':'NetworkTopologyStrategy','dc1':3}` (double quotes accepted).
 */
export function replicationClause(spec: string): string {
  const s = spec.trim();
  if (s === '') throw new Error('CASSANDRA_REPLICATION is empty (use dc:rf such as datacenter1:3, or 1 for a development node)');
  if (/^\d+$/.test(s)) return `{'class': 'SimpleStrategy', 'replication_factor': ${Number(s)}}`;
  if (s.startsWith('{')) {
    const cql = s.replace(/"/g, "'");
    if (!/^\{[\w\s'.:,-]*\}$/.test(cql) || !/'class'\s*:/.test(cql)) throw new Error(`invalid CASSANDRA_REPLICATION map: ${s}`);
    return cql;
  }
  const dcs = s.split(',').map((part) => part.trim().split(':'));
  if (dcs.every((p) => p.length === 2 && /^[\w.-]+$/.test(p[0]!) && /^\d+$/.test(p[1]!)))
    return `{'class': 'NetworkTopologyStrategy', ${dcs.map(([dc, rf]) => `'${dc}': ${Number(rf)}`).join(', ')}}`;
  throw new Error(`invalid CASSANDRA_REPLICATION: ${s} (use a CQL map, a replication factor, or dc:rf,dc:rf)`);
}

/** Reads CASSANDRA_* and BATON_CASSANDRA_MIGRATE; undefined when CASSANDRA_CONTACT_POINTS is not set. */
export function cassandraConfigFromEnv(env: NodeJS.ProcessEnv): CassandraStoreConfig | undefined {
  const points = env.CASSANDRA_CONTACT_POINTS?.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!points || points.length === 0) return undefined;
  return {
    contactPoints: points,
    localDataCenter: env.CASSANDRA_LOCAL_DC || 'datacenter1',
    keyspace: env.CASSANDRA_KEYSPACE || 'baton',
    username: env.CASSANDRA_USERNAME || undefined,
    password: env.CASSANDRA_PASSWORD || undefined,
    consistency: env.CASSANDRA_CONSISTENCY || undefined,
    replication: env.CASSANDRA_REPLICATION || undefined,
    migrate: env.BATON_CASSANDRA_MIGRATE === 'true',
  };
}
