/**
 * scripts/services/cassandra/node.sh, shared by cassandra.sh and cassandra-cluster.sh: one node's
 * configuration and JVM command line, checked with a stand-in `java` (no Cassandra is started).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const services = path.resolve(__dirname, '../../../scripts/services');

describe('launch_node', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'baton-cassandra-node-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('writes the node configuration from the template and starts the JVM with it, appending to stdout.log', () => {
    const cache = path.join(tmp, 'cache');
    mkdirSync(path.join(cache, 'cassandra-5.0.9/lib'), { recursive: true });
    writeFileSync(path.join(cache, 'cassandra-5.0.9/lib/jamm-0.4.0.jar'), '');
    const java = path.join(tmp, 'java');
    writeFileSync(java, '#!/usr/bin/env bash\nprintf "%s\\n" "$@" >"$ARGV_FILE"\necho started\n', { mode: 0o755 });
    const dir = path.join(tmp, 'node2');
    mkdirSync(path.join(dir, 'logs'), { recursive: true });
    writeFileSync(path.join(dir, 'logs/stdout.log'), 'earlier run\n');
    const script = [
      `here=${JSON.stringify(services)}`,
      'source "$here/cassandra/node.sh"',
      // Stand-ins so the stand-in java runs in this shell's job, waited for below.
      'setsid() { "$@"; }',
      'nohup() { "$@"; }',
      `launch_node "$DIR" 127.0.0.2 9142 7100 127.0.0.1:7100,127.0.0.2:7100 -3074457345618258603 baton-test-cluster 640M "$JAVA" "$DIR.pid"`,
      'wait',
    ].join('\n');
    const r = spawnSync('bash', ['-c', script], {
      env: { ...process.env, BATON_CACHE_DIR: cache, DIR: dir, JAVA: java, ARGV_FILE: path.join(tmp, 'argv') },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);

    const yaml = readFileSync(path.join(dir, 'conf/cassandra.yaml'), 'utf8');
    expect(yaml).toContain('cluster_name: baton-test-cluster');
    expect(yaml).toContain('initial_token: -3074457345618258603');
    expect(yaml).toContain('- seeds: "127.0.0.1:7100,127.0.0.2:7100"');
    expect(yaml).toContain('listen_address: 127.0.0.2');
    expect(yaml).toContain('storage_port: 7100');
    expect(yaml).toContain('native_transport_port: 9142');
    expect(yaml).toContain(`${dir}/commitlog`);
    expect(yaml).not.toMatch(/@[A-Z_]+@/);
    expect(readFileSync(path.join(dir, 'conf/logback.xml'), 'utf8')).not.toContain('@RUN@');

    const argv = readFileSync(path.join(tmp, 'argv'), 'utf8').trim().split('\n');
    expect(argv.slice(0, 2)).toEqual(['-Xms640M', '-Xmx640M']);
    expect(argv).toContain(`-javaagent:${cache}/cassandra-5.0.9/lib/jamm-0.4.0.jar`);
    expect(argv).toContain(`-Dcassandra.config=file://${dir}/conf/cassandra.yaml`);
    expect(argv.slice(-3)).toEqual(['-cp', `${cache}/cassandra-5.0.9/lib/*`, 'org.apache.cassandra.service.CassandraDaemon']);
    expect(readFileSync(path.join(dir, 'logs/stdout.log'), 'utf8')).toBe('earlier run\nstarted\n');
    expect(Number(readFileSync(`${dir}.pid`, 'utf8'))).toBeGreaterThan(0);
  });

  it("starts the JVM without the caller's descriptors, so a caller's flock(1) lock is not held for as long as the node runs", () => {
    const cache = path.join(tmp, 'cache');
    mkdirSync(path.join(cache, 'cassandra-5.0.9/lib'), { recursive: true });
    writeFileSync(path.join(cache, 'cassandra-5.0.9/lib/jamm-0.4.0.jar'), '');
    const java = path.join(tmp, 'java');
    // The stand-in lists the descriptors it holds (its own shell's, before it opens any).
    writeFileSync(java, '#!/usr/bin/env bash\nls /proc/$$/fd >"$FDS_FILE"\n', { mode: 0o755 });
    const dir = path.join(tmp, 'node1');
    const script = [
      `here=${JSON.stringify(services)}`,
      'source "$here/cassandra/node.sh"',
      'exec 9>"$LOCK"',
      `launch_node "$DIR" 127.0.0.1 9142 7100 127.0.0.1:7100 0 baton-test-cluster 640M "$JAVA" "$DIR.pid"`,
      'wait',
    ].join('\n');
    const fdsFile = path.join(tmp, 'fds');
    const r = spawnSync('bash', ['-c', script], {
      env: { ...process.env, BATON_CACHE_DIR: cache, DIR: dir, JAVA: java, FDS_FILE: fdsFile, LOCK: path.join(tmp, 'lock') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const fds = readFileSync(fdsFile, 'utf8').trim().split('\n').map(Number);
    expect(fds).not.toContain(9);
  });
});
