import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The official Python SDK and Java client, installed by the tests themselves into
 * ~/.cache/baton (BATON_CACHE_DIR), keyed by the hash of what pins them (requirements.txt, pom.xml
 * and the sources), so a second run reuses them. A marker written last makes an interrupted
 * install start over instead of being half used.
 */
export const cacheDir = (): string => process.env.BATON_CACHE_DIR ?? join(homedir(), '.cache', 'baton');
export const sdkDir = resolve(__dirname, '..', 'sdk');

const hashOf = (files: string[]): string => {
  const h = createHash('sha256');
  for (const f of files) h.update(f).update(readFileSync(f));
  return h.digest('hex').slice(0, 16);
};

const listFiles = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name)) : [join(dir, name)]));

function run(cmd: string, args: string[], opts: { cwd?: string } = {}): void {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
}

/** Why a runtime cannot be set up here (undefined when it can): the suites skip or, with CI=true, fail. */
export function pythonMissing(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))']);
  return r.status === 0 ? undefined : 'python3 (3.9+) with the venv and ensurepip modules (apt: python3-venv)';
}

/** A venv with the pinned conductor-python; returns its python binary. */
export function ensurePythonSdk(): string {
  const requirements = join(sdkDir, 'python', 'requirements.txt');
  const venv = join(cacheDir(), `sdk-python-${hashOf([requirements])}`);
  const python = join(venv, 'bin', 'python');
  if (existsSync(join(venv, '.installed'))) return python;
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(cacheDir(), { recursive: true });
  run('python3', ['-m', 'venv', venv]);
  run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--no-deps', '-r', requirements]);
  writeFileSync(join(venv, '.installed'), '');
  return python;
}

/** A JDK of major version 21 or later (conductor-client 6.0.0 is compiled for 21): JAVA_HOME, then /usr/lib/jvm. */
export function findJdk21(): string | undefined {
  const candidates = [
    process.env.CONDUCTOR_JAVA_HOME,
    process.env.JAVA_HOME,
    ...(existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm').map((d) => join('/usr/lib/jvm', d)) : []),
  ];
  for (const home of candidates) {
    if (!home || !existsSync(join(home, 'bin', 'javac'))) continue;
    const r = spawnSync(join(home, 'bin', 'java'), ['-XshowSettings:properties', '-version'], { encoding: 'utf8' });
    const major = /java\.specification\.version = (\d+)/.exec(r.stderr ?? '')?.[1];
    if (major && Number(major) >= 21) return home;
  }
  return undefined;
}

export function javaMissing(): string | undefined {
  if (!findJdk21()) return 'a JDK 21 or later (JAVA_HOME or /usr/lib/jvm)';
  if (spawnSync('mvn', ['-v']).status !== 0) return 'Maven (mvn) to fetch the client from Maven Central';
  return undefined;
}

/** The pinned Java client's jars (Maven) plus the compiled scenarios; returns java and the class path. */
export function ensureJavaClient(): { java: string; classpath: string } {
  const project = join(sdkDir, 'java');
  const jdk = findJdk21();
  if (!jdk) throw new Error(javaMissing());
  const sources = listFiles(join(project, 'src'));
  const dir = join(cacheDir(), `sdk-java-${hashOf([join(project, 'pom.xml'), ...sources])}`);
  const classpath = `${join(dir, 'classes')}:${join(dir, 'lib', '*')}`;
  const java = join(jdk, 'bin', 'java');
  if (existsSync(join(dir, '.installed'))) return { java, classpath };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'classes'), { recursive: true });
  // Maven only fetches (it may run on an older default Java); javac of the 21+ JDK compiles.
  run('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${join(dir, 'lib')}`], { cwd: project });
  run(join(jdk, 'bin', 'javac'), ['--release', '21', '-nowarn', '-d', join(dir, 'classes'), '-cp', join(dir, 'lib', '*'), ...sources]);
  writeFileSync(join(dir, '.installed'), '');
  return { java, classpath };
}

/** What a scenario program reported: per scenario `ok` plus the observed values, or the error and trace. */
export type ScenarioReport = Record<string, { ok: boolean; error?: string; trace?: string; [k: string]: unknown }>;

/** Runs a scenario program to its end and parses the report on the last line of its stdout. */
export function runScenarios(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ report: ScenarioReport; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 240_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const last = stdout.trim().split('\n').pop() ?? '';
        try {
          resolvePromise({ report: JSON.parse(last) as ScenarioReport, stderr });
        } catch {
          reject(new Error(`${cmd} gave no report (${err ? String(err) : 'exit 0'}):\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`));
        }
      },
    );
  });
}

/** One scenario's observations; a scenario that threw fails here with its trace. */
export function observed(report: ScenarioReport, name: string): Record<string, unknown> {
  const entry = report[name];
  if (!entry) throw new Error(`scenario ${name} did not run`);
  if (!entry.ok) throw new Error(`scenario ${name} failed: ${entry.error}\n${entry.trace ?? ''}`);
  return entry;
}
