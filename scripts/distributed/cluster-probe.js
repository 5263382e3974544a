#!/usr/bin/env node
// What up.sh and down.sh ask of the machine and of the engines, in Node because the provisioned
// Cassandra has no cqlsh and readiness needs JSON: free loopback ports, readiness, and dropping a run's data.
'use strict';
const net = require('node:net');
const path = require('node:path');

const [command, ...args] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** N distinct free ports on 127.0.0.1, all held open at once so none is handed out twice. */
async function freePorts(n) {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve, reject) => {
          const s = net.createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Polls `check` every 500 ms until it returns true, or fails after `seconds` saying what it waited for. */
async function waitUntil(what, seconds, check) {
  const deadline = Date.now() + seconds * 1000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (e) {
      last = String(e && e.message ? e.message : e);
    }
    await sleep(500);
  }
  throw new Error(`timed out after ${seconds}s waiting for ${what}${last ? ` (${last})` : ''}`);
}

const ok = async (url, headers = {}) => (await fetch(url, { headers })).ok;

/** daprd's metadata shows its actor host ready, connected to placement and hosting WorkflowActor. */
async function actorsHosted(daprHttpPort, token) {
  const res = await fetch(`http://127.0.0.1:${daprHttpPort}/v1.0/metadata`, { headers: token ? { 'dapr-api-token': token } : {} });
  const rt = (await res.json()).actorRuntime ?? {};
  return rt.hostReady === true && /connected/i.test(rt.placement ?? '') && (rt.activeActors ?? []).some((a) => a.type === 'WorkflowActor');
}

function cassandraClient() {
  const { Client } = require('cassandra-driver');
  return new Client({
    contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? '127.0.0.1:9042').split(','),
    localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
  });
}

/** Index names and template names of a run's prefix (Elasticsearch 8 refuses wildcard deletes, so they are listed first). */
async function indexData(es, prefix) {
  const indices = await (await fetch(`${es}/_cat/indices/${prefix}*?format=json&expand_wildcards=all`)).json();
  const templates = (await (await fetch(`${es}/_index_template/${prefix}*`)).json()).index_templates ?? [];
  return { indices: indices.map((i) => i.index), templates: templates.map((t) => t.name) };
}

/** Drops the run's keyspace, deletes its indices and index templates by name; again until nothing is left (a loaded engine may time out). */
async function dropData(keyspace, prefix) {
  if (!/^[a-z][a-z0-9_]*$/.test(keyspace) || !/^[a-z][a-z0-9-]*$/.test(prefix)) throw new Error(`refusing odd names: ${keyspace} ${prefix}`);
  const es = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200';
  let left;
  for (let attempt = 1; attempt <= 5; attempt++) {
    try {
      const cassandra = cassandraClient();
      try {
        await cassandra.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
      } finally {
        await cassandra.shutdown();
      }
      const { indices, templates } = await indexData(es, prefix);
      for (const index of indices) await fetch(`${es}/${index}`, { method: 'DELETE' });
      for (const name of templates) await fetch(`${es}/_index_template/${name}`, { method: 'DELETE' });
      left = await leftovers(keyspace, prefix);
      if (left.keyspaces.length + left.indices.length + left.templates.length === 0) return;
    } catch (e) {
      left = String(e && e.message ? e.message : e);
    }
    await sleep(2000 * attempt);
  }
  throw new Error(`could not drop all of ${keyspace} / ${prefix}*: ${typeof left === 'string' ? left : JSON.stringify(left)}`);
}

/** What a run left in the engines: its keyspace if it exists, its indices and templates. */
async function leftovers(keyspace, prefix) {
  const cassandra = cassandraClient();
  let keyspaces;
  try {
    keyspaces = (await cassandra.execute('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace])).rows.map(
      (r) => r.keyspace_name,
    );
  } finally {
    await cassandra.shutdown();
  }
  const { indices, templates } = await indexData(process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200', prefix);
  return { keyspaces, indices, templates };
}

async function main() {
  switch (command) {
    case 'ports':
      console.log((await freePorts(Number(args[0]))).join(' '));
      return;
    case 'wait-http':
      return waitUntil(`${args[0]} to answer 2xx`, Number(args[1] ?? 120), () => ok(args[0]));
    case 'wait-actors':
      return waitUntil(`daprd on port ${args[0]} to host WorkflowActor`, Number(args[2] ?? 120), () => actorsHosted(args[0], args[1]));
    case 'drop-data':
      return dropData(args[0], args[1]);
    case 'leftovers':
      console.log(JSON.stringify(await leftovers(args[0], args[1])));
      return;
    default:
      throw new Error(
        `usage: ${path.basename(__filename)} ports N | wait-http URL [S] | wait-actors DAPR_HTTP_PORT TOKEN [S] | drop-data KEYSPACE PREFIX | leftovers KEYSPACE PREFIX`,
      );
  }
}

main().catch((e) => {
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
});
