/** `npm run bench`: starts every process of the run, drives the phases in order, prints the table and writes latest.json. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { LoadDriver } from './load-driver';
import type {
  BullmqResult,
  CeilingResult,
  DaprWorkflowResult,
  InFlightResult,
  LatencyResult,
  LoadCommand,
  RestateResult,
  ThroughputResult,
  Timing,
} from './load/protocol';
import { ALL_PHASES, BenchOptions, parseArgs, PEER_ONLY_PHASES, PhaseName, UsageRequested, USAGE } from './options';
import { RunningBaton, startBaton } from './processes/baton-server';
import { CeilingKind, RunningCeiling, startCeilingApp } from './processes/ceiling-server';
import { conductorPostgresProperties } from './processes/conductor-postgres';
import { missingConductor, RunningConductor, startConductor } from './processes/conductor-server';
import { countsBetween, ProxyCounts } from './processes/counting-proxy';
import { missingDapr, RunningDaprWorkflowHost, startDaprWorkflowHost } from './processes/dapr-workflow-host';
import { DistributedCluster, missingDistributed, startDistributedCluster } from './processes/distributed-cluster';
import { loadServiceEnv } from './processes/service-env';
import { StoreCounters, StoreCounts, storeDelta } from './processes/store-counters';
import { killAllManagedChildren } from './processes/managed-child';
import { processTree, ProcReading, ProcSampler, readProc } from './processes/proc-sampler';
import { missingPostgres, RunningPostgres, startPostgres } from './processes/postgres-server';
import { RunningRedis, startRedis } from './processes/redis-server';
import { missingRestate, RunningRestate, startRestate } from './processes/restate-host';
import {
  buildLatest,
  ConductorFigures,
  cpuMsPerTask,
  DistributedFigures,
  InFlightFigures,
  Machine,
  Outcome,
  perTask,
  RunRecord,
  ServerWindow,
} from './report/results';
import { judgeScaleOut, ScaleOutFigures, scaleOutPoints, ScaleOutWindow } from './report/scale-out';
import { fmt, renderReport } from './report/table';
import { CpuProfile, hotFunctions, hotModules } from './stats/cpu-profile';
import { parseMachineCpuTicks } from './stats/proc';
import { judgeHeapFloor, judgeRssTrend, type HeapSample, RssSample } from './stats/rss-trend';

const log = (msg: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};

function findProjectRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'baton') return dir;
  }
  throw new Error(`no Baton package.json above ${from}`);
}

function machine(): Machine {
  const c = cpus();
  return {
    cores: c.length,
    nodeVersion: process.version,
    cpuModel: c[0]?.model.trim() ?? 'unknown',
    totalMemoryMb: Math.round(totalmem() / 1024 / 1024),
    platform: `${process.platform}-${process.arch}`,
    loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

const sumOrNull = (xs: (number | null)[]): number | null =>
  xs.some((x) => x === null) ? null : Math.round(xs.reduce<number>((a, x) => a + (x ?? 0), 0) * 100) / 100;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** CPU the observed processes used together between the load process's window-start and window-end events. */
class WindowCpu {
  private from: ProcReading[] | undefined;
  private observed: number[] = [];
  cores: number | null = null;

  /** `pids` is read when the window opens, so a process's children of that moment count too (see processTree). */
  constructor(private readonly pids: number[] | (() => number[])) {}

  onEvent(name: string): void {
    try {
      if (name === 'window-start') {
        this.observed = typeof this.pids === 'function' ? this.pids() : this.pids;
        this.from = this.observed.map(readProc);
      }
      if (name === 'window-end' && this.from) {
        const to = this.observed.map(readProc);
        const cpu = to.reduce((sum, t, i) => sum + t.cpuSeconds - (this.from?.[i]?.cpuSeconds ?? t.cpuSeconds), 0);
        const seconds = ((to[0]?.atMs ?? 0) - (this.from[0]?.atMs ?? 0)) / 1000;
        this.cores = seconds > 0 ? Math.round((cpu / seconds) * 100) / 100 : null;
      }
    } catch {
      this.cores = null;
    }
  }
}

/** The whole machine's busy cores between the load process's window-start and window-end events (/proc/stat). */
class MachineCpu {
  private from: { busy: number; total: number } | undefined;
  cores: number | null = null;

  onEvent(name: string): void {
    try {
      if (name === 'window-start') this.from = parseMachineCpuTicks(readFileSync('/proc/stat', 'utf8'));
      if (name === 'window-end' && this.from) {
        const to = parseMachineCpuTicks(readFileSync('/proc/stat', 'utf8'));
        const total = to.total - this.from.total;
        this.cores = total > 0 ? Math.round(((to.busy - this.from.busy) / total) * cpus().length * 100) / 100 : null;
      }
    } catch {
      this.cores = null;
    }
  }
}

/** The pid an engine script recorded (`npm run services` writes <name>.pid in its run directory), if it runs. */
function enginePid(name: string): number | undefined {
  const dir = process.env.BATON_RUN_DIR ?? join(process.env.BATON_CACHE_DIR ?? join(process.env.HOME ?? '/root', '.cache', 'baton'), 'run');
  try {
    const pid = Number(readFileSync(join(dir, `${name}.pid`), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

class Bench {
  private readonly driver = new LoadDriver();
  private peakRssMb = 0;
  private batonReady: string | null = null;
  readonly run: RunRecord;

  constructor(
    private readonly opts: BenchOptions,
    private readonly root: string,
  ) {
    this.run = {
      mode: opts.mode,
      startedAt: new Date().toISOString(),
      durationSeconds: 0,
      machine: machine(),
      settings: {
        timing: opts.timing,
        latencyTiming: opts.latencyTiming,
        worker: opts.worker,
        inFlightPerType: opts.inFlightPerType,
        latencyLoad: opts.latencyLoad,
        inFlightLevels: opts.inFlightLevels,
        soakWorkflows: opts.soakWorkflows,
        phases: opts.phases,
        profiled: opts.profile,
        client: 'undici Pool, keep-alive, pipelining 1, one load process (child_process.fork)',
      },
      inFlight: [],
      skipped: [...opts.skippedPhases],
      memory: { rssMbPeak: null, soakTarget: opts.soakWorkflows, soakCompleted: null, rssMbAfterSoak: null, samples: [], trend: null },
    };
  }

  private has(p: PhaseName): boolean {
    return this.opts.phases.includes(p);
  }

  private windowTimeout(): number {
    return this.opts.timing.warmupMs + this.opts.timing.windowMs + 45_000;
  }

  build(): void {
    if (!this.opts.build) {
      this.batonReady = existsSync(join(this.root, 'dist', 'main.js')) ? null : 'dist/main.js is missing and --no-build was given';
      return;
    }
    log('building Baton (npm run build)');
    const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: this.root, stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
    if (r.status !== 0) this.batonReady = `npm run build failed (exit ${r.status ?? r.signal})`;
    else if (!existsSync(join(this.root, 'dist', 'main.js'))) this.batonReady = 'npm run build produced no dist/main.js';
  }

  /** A fresh Baton (new port, new data directory) for one phase; its RSS is sampled all along. */
  private async withBaton<T>(label: string, body: (b: RunningBaton) => Promise<T>): Promise<Outcome<T>> {
    if (this.batonReady) return { ok: false, error: this.batonReady };
    let baton: RunningBaton | undefined;
    let sampler: ProcSampler | undefined;
    const profileDir = this.opts.profile ? mkdtempSync(join(tmpdir(), 'baton-bench-prof-')) : undefined;
    try {
      baton = await startBaton(this.root, { cpuProfileDir: profileDir });
      sampler = new ProcSampler(baton.child.pid).start();
      log(`${label}: Baton pid ${baton.child.pid} at ${baton.baseUrl}`);
      const result = await body(baton);
      sampler.sample();
      this.peakRssMb = Math.max(this.peakRssMb, sampler.peakRssMb);
      return { ok: true, result, server: { cpuCores: null, rssMbPeak: sampler.peakRssMb } };
    } catch (e) {
      const tail = baton && !baton.child.running ? `\nBaton exited (code ${baton.child.exitCode}):\n${baton.child.output()}` : '';
      log(`${label} FAILED: ${errorText(e)}${tail}`);
      return { ok: false, error: errorText(e) + tail };
    } finally {
      if (sampler) this.peakRssMb = Math.max(this.peakRssMb, sampler.peakRssMb);
      sampler?.stop();
      await baton?.stop();
      if (profileDir) this.collectProfile(label, profileDir);
    }
  }

  /** The profile V8 wrote when Baton exited, boiled down to its hottest functions. */
  private collectProfile(label: string, dir: string): void {
    try {
      // V8 writes one profile per thread (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile); the event loop's is thread 0.
      const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
      const file = files.find((f) => f.split('.')[4] === '0') ?? files[0];
      if (!file) {
        log(`${label}: Baton wrote no CPU profile (did it exit cleanly on SIGTERM?)`);
        return;
      }
      const text = readFileSync(join(dir, file), 'utf8');
      // Kept for flame graphs (Chrome DevTools / speedscope) next to the results.
      writeFileSync(join(this.root, 'bench', 'results', `${label.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`), text);
      const profile = JSON.parse(text) as CpuProfile;
      this.run.profiles = { ...this.run.profiles, [label]: hotFunctions(profile, this.root) };
      this.run.profileModules = { ...this.run.profileModules, [label]: hotModules(profile, this.root) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private async drive<T>(
    command: LoadCommand,
    pid: number | number[] | (() => number[]),
    timeoutMs: number,
    hook?: (name: string, data: Record<string, number | string>) => void,
  ): Promise<{ result: T; cpuCores: number | null }> {
    const cpu = new WindowCpu(typeof pid === 'number' ? [pid] : pid);
    let lastProgressLog = 0;
    const result = await this.driver.run<T>(
      command,
      (name, data) => {
        cpu.onEvent(name);
        hook?.(name, data);
        if (name === 'progress' && performance.now() - lastProgressLog > 5000) {
          lastProgressLog = performance.now();
          log(
            `  ${command.kind}: ${Object.entries(data)
              .map(([k, v]) => `${k} ${typeof v === 'number' ? fmt(v) : v}`)
              .join(', ')}`,
          );
        }
      },
      timeoutMs,
    );
    return { result, cpuCores: cpu.cores };
  }

  async ceiling(): Promise<void> {
    this.run.ceiling = await this.ceilingOf('express');
    this.run.rawCeiling = await this.ceilingOf('raw');
  }

  private async ceilingOf(kind: CeilingKind): Promise<Outcome<CeilingResult>> {
    log(`HTTP ceiling: ${kind === 'express' ? 'express 5' : 'bare node:http'} trivial JSON endpoint`);
    const inFlight = 3 * this.opts.worker.concurrencyPerType;
    let app: RunningCeiling | undefined;
    try {
      app = await startCeilingApp(kind);
      const r = await this.drive<CeilingResult>(
        { kind: 'ceiling', baseUrl: app.baseUrl, inFlight, timing: this.opts.timing },
        app.child.pid,
        this.windowTimeout(),
      );
      log(`  ${fmt(r.result.requestsPerSecond)} req/s`);
      return { ok: true, result: r.result, server: { cpuCores: r.cpuCores, rssMbPeak: null } };
    } catch (e) {
      log(`  FAILED: ${errorText(e)}`);
      return { ok: false, error: errorText(e) };
    } finally {
      await app?.stop();
    }
  }

  private skip(phase: PhaseName, reason: string): void {
    log(`${phase}: skipped: ${reason}`);
    this.run.skipped.push({ phase, reason });
  }

  /**
   * Conductor OSS itself, driven with the very same definitions, workers and measurements as Baton:
   * its maximum (closed loop), then latencies at 70% of that maximum (open loop), on one server.
   */
  async conductor(): Promise<void> {
    const missing = missingConductor();
    if (missing) return this.skip('conductor', missing);
    log(`Conductor OSS ${process.env.CONDUCTOR_VERSION ?? ''}: starting its boot jar (default SQLite configuration, -Xmx2g)`);
    this.run.conductor = await this.conductorRun({ persistence: 'sqlite', properties: {}, extraPids: [] });
  }

  /**
   * Conductor OSS as its users run it in production: PostgreSQL for data, queues and index (a private
   * cluster of this run), driven exactly like the SQLite one; its CPU counts the JVM and PostgreSQL.
   */
  async conductorPg(): Promise<void> {
    const missing = missingConductor() ?? missingPostgres();
    if (missing) return this.skip('conductor-pg', missing);
    let pg: RunningPostgres | undefined;
    try {
      pg = await startPostgres();
      log(
        `Conductor OSS ${process.env.CONDUCTOR_VERSION ?? ''} on PostgreSQL (pid ${pg.pid}, 127.0.0.1:${pg.port}): data, queues, index and execution lock in PostgreSQL, -Xmx2g`,
      );
      this.run.conductorPg = await this.conductorRun({ persistence: 'postgres', properties: conductorPostgresProperties(pg), extraPids: [pg.pid] });
    } catch (e) {
      this.run.conductorPg = { ok: false, error: errorText(e) };
      log(`  Conductor on PostgreSQL FAILED: ${errorText(e)}`);
    } finally {
      await pg?.stop();
    }
  }

  private async conductorRun(v: {
    persistence: ConductorFigures['persistence'];
    properties: Record<string, string>;
    extraPids: number[];
  }): Promise<Outcome<ConductorFigures>> {
    let server: RunningConductor | undefined;
    let sampler: ProcSampler | undefined;
    const t0 = performance.now();
    try {
      server = await startConductor({ heap: '2g', properties: v.properties });
      const startSeconds = Math.round((performance.now() - t0) / 100) / 10;
      log(`  Conductor up in ${fmt(startSeconds, 1)} s at ${server.baseUrl} (pid ${server.child.pid})`);
      sampler = new ProcSampler(server.child.pid).start();
      const conductorPid = server.child.pid;
      const pid = (): number[] => [conductorPid, ...v.extraPids.flatMap(processTree)];
      const timing: Timing = { warmupMs: this.opts.conductorWarmupMs, windowMs: this.opts.timing.windowMs };
      const max = await this.drive<ThroughputResult>(
        {
          kind: 'closed-loop',
          baseUrl: server.baseUrl,
          shape: 'simple3',
          settings: this.opts.worker,
          inFlightWorkflows: 3 * this.opts.inFlightPerType,
          timing,
          useUpdateV2: false,
          soakWorkflows: 0,
          soakTimeoutMs: 60_000,
        },
        pid,
        timing.warmupMs + timing.windowMs + 90_000,
      );
      log(`  ${fmt(max.result.tasksPerSecond)} tasks/s, ${fmt(max.result.workflowsPerSecond, 1)} workflows/s, errors ${max.result.errors.count}`);
      const figures: ConductorFigures = {
        version: server.version,
        persistence: v.persistence,
        startSeconds,
        throughput: max.result,
        throughputCpuCores: max.cpuCores,
        latency: null,
        latencyCpuCores: null,
      };
      if (max.result.workflowsPerSecond > 0) {
        const rate = Math.max(1, Math.round(max.result.workflowsPerSecond * this.opts.latencyLoad * 10) / 10);
        log(`  Conductor latency: open loop at ${fmt(rate, 1)} workflow starts/s (${this.opts.latencyLoad * 100}% of its max)`);
        try {
          const lat = await this.drive<LatencyResult>(
            { kind: 'open-loop', baseUrl: server.baseUrl, shape: 'simple3', settings: this.opts.worker, ratePerSecond: rate, timing: this.opts.latencyTiming },
            pid,
            this.windowTimeout() + 60_000,
          );
          figures.latency = lat.result;
          figures.latencyCpuCores = lat.cpuCores;
          log(
            `  start p99 ${fmt(lat.result.startLatencyMs?.p99, 1)} ms, update p99 ${fmt(lat.result.updateLatencyMs?.p99, 1)} ms, schedule-to-poll p99 ${fmt(lat.result.scheduleToPollMs?.p99, 1)} ms`,
          );
        } catch (e) {
          figures.latencyError = errorText(e);
          log(`  Conductor latency FAILED: ${errorText(e)}`);
        }
      }
      sampler.sample();
      return { ok: true, result: figures, server: { cpuCores: max.cpuCores, rssMbPeak: sampler.peakRssMb } };
    } catch (e) {
      const tail = server && !server.child.running ? `\nConductor exited (code ${server.child.exitCode}):\n${server.child.output()}` : '';
      log(`  Conductor FAILED: ${errorText(e)}`);
      return { ok: false, error: errorText(e) + tail };
    } finally {
      sampler?.stop();
      await server?.stop();
    }
  }

  /** Dapr Workflow on the real daprd: the same 3-step chain as three activities, scheduled and awaited by the load process. */
  async daprWorkflow(): Promise<void> {
    const missing = missingDapr();
    if (missing) return this.skip('dapr-workflow', missing);
    log('Dapr Workflow: redis-server, placement, scheduler and daprd; the workflow app runs in the load process');
    let host: RunningDaprWorkflowHost | undefined;
    try {
      host = await startDaprWorkflowHost();
      const inFlightWorkflows = 3 * this.opts.inFlightPerType;
      const r = await this.drive<DaprWorkflowResult>(
        { kind: 'dapr-workflow', daprGrpcPort: host.daprGrpcPort, inFlightWorkflows, timing: this.opts.timing },
        host.serverPids,
        this.windowTimeout() + 60_000,
      );
      this.run.daprWorkflow = { ok: true, result: r.result, server: { cpuCores: r.cpuCores, rssMbPeak: null } };
      log(`  ${fmt(r.result.workflowsPerSecond, 1)} workflows/s (${fmt(r.result.activitiesPerSecond)} activities/s), errors ${r.result.errors.count}`);
    } catch (e) {
      this.run.daprWorkflow = { ok: false, error: errorText(e) };
      log(`  Dapr Workflow FAILED: ${errorText(e)}`);
    } finally {
      await host?.stop();
    }
  }

  /** Restate: the same 3-step chain as one durable handler (three journaled steps), invoked through the ingress and awaited by the load process. */
  async restate(): Promise<void> {
    const missing = missingRestate();
    if (missing) return this.skip('restate', missing);
    log('Restate: restate-server (one node, shipped defaults) and the service process beside it; the load process invokes through the ingress');
    let host: RunningRestate | undefined;
    try {
      host = await startRestate();
      const r = await this.drive<RestateResult>(
        { kind: 'restate', ingressSocket: host.ingressSocket, inFlightWorkflows: 3 * this.opts.inFlightPerType, timing: this.opts.timing },
        host.serverPids,
        this.windowTimeout() + 60_000,
      );
      this.run.restate = { ok: true, result: { ...r.result, version: host.version }, server: { cpuCores: r.cpuCores, rssMbPeak: null } };
      log(`  ${fmt(r.result.workflowsPerSecond, 1)} workflows/s, errors ${r.result.errors.count}; CPU of restate-server + service ${fmt(r.cpuCores, 2)} cores`);
    } catch (e) {
      const tail = host && !host.server.running ? `\nrestate-server exited (code ${host.server.exitCode}):\n${host.server.output()}` : '';
      this.run.restate = { ok: false, error: errorText(e) + tail };
      log(`  Restate FAILED: ${errorText(e)}`);
    } finally {
      await host?.stop();
    }
  }

  /** One closed-loop window on the distributed cluster, with every sidecar call, store request and CPU second in it counted. */
  private async countedDistributedWindow(
    c: DistributedCluster,
    store: StoreCounters,
    urls: string[],
    useUpdateV2: boolean,
  ): Promise<{ max: { result: ThroughputResult; cpuCores: number | null }; figures: Omit<DistributedFigures, 'replicas' | 'latency' | 'updateV2'> }> {
    // per replica: [app → daprd, daprd → app]
    const proxies = (): ProxyCounts[][] => c.replicas.map((r) => [r.toSidecar.counts(), r.fromSidecar.counts()]);
    let proxyFrom: ProxyCounts[][] = [];
    let proxyTo: ProxyCounts[][] = [];
    let storeFrom: Promise<StoreCounts> | undefined;
    let storeTo: Promise<StoreCounts> | undefined;
    let windowMs = 0;
    let openedAt = 0;
    // CPU per group of processes (the engines are shared with anything else running on this machine)
    const groups: Record<string, WindowCpu> = {
      batonReplicas: new WindowCpu(c.batonPids()),
      daprdPlacementSchedulerRedis: new WindowCpu(c.daprPids()),
    };
    // the sidecar group split per process, to say which of them a task costs
    const sidecarProcesses = Object.fromEntries(c.daprNamedPids().map(([name, pid]) => [name, new WindowCpu([pid])]));
    const cassandraPid = enginePid('cassandra');
    const esPid = enginePid('elasticsearch');
    if (cassandraPid) groups.cassandra = new WindowCpu([cassandraPid]);
    if (esPid) groups.elasticsearch = new WindowCpu([esPid]);
    const machineCpu = new MachineCpu();
    const timing: Timing = { warmupMs: Math.max(this.opts.timing.warmupMs, 10_000), windowMs: this.opts.timing.windowMs };
    const max = await this.drive<ThroughputResult>(
      {
        kind: 'closed-loop',
        baseUrl: urls,
        shape: 'simple3',
        settings: this.opts.worker,
        inFlightWorkflows: 3 * this.opts.inFlightPerType,
        timing,
        useUpdateV2,
        soakWorkflows: 0,
        soakTimeoutMs: 60_000,
      },
      [...c.batonPids(), ...c.daprPids()],
      timing.warmupMs + timing.windowMs + 120_000,
      (name) => {
        for (const g of [...Object.values(groups), ...Object.values(sidecarProcesses), machineCpu]) g.onEvent(name);
        if (name === 'window-start') {
          openedAt = performance.now();
          proxyFrom = proxies();
          storeFrom = store.read();
        }
        if (name === 'window-end') {
          windowMs = performance.now() - openedAt;
          proxyTo = proxies();
          storeTo = store.read();
        }
      },
    );
    const tasks = max.result.tasksPerSecond * (windowMs / 1000);
    const zero: ProxyCounts = { total: 0, byCategory: {} };
    const delta = (side: 0 | 1): ProxyCounts[] => proxyTo.map((to, i) => countsBetween(proxyFrom[i]?.[side] ?? zero, to[side] ?? zero));
    const [sFrom, sTo] = await Promise.all([storeFrom, storeTo]);
    const stores = sFrom && sTo ? storeDelta(sFrom, sTo) : null;
    return {
      max,
      figures: {
        throughput: max.result,
        cpuCoresBatonAndDapr: max.cpuCores,
        cpuCoresByGroup: Object.fromEntries(Object.entries(groups).map(([k, g]) => [k, g.cores])),
        machineBusyCores: machineCpu.cores,
        cpuMsPerTaskByGroup: Object.fromEntries(Object.entries(groups).map(([k, g]) => [k, cpuMsPerTask(g.cores, max.result.tasksPerSecond)])),
        sidecarCpuMsPerTaskByProcess: Object.fromEntries(
          Object.entries(sidecarProcesses).map(([k, g]) => [k, cpuMsPerTask(g.cores, max.result.tasksPerSecond)]),
        ),
        tasksInWindow: Math.round(tasks),
        ...perTask(delta(0), delta(1), stores, tasks),
        storeErrors: [...(sFrom?.errors ?? []), ...(sTo?.errors ?? [])],
      },
    };
  }

  /**
   * Two Baton replicas on real daprd, Cassandra, Elasticsearch and Redis: maximum (closed loop, requests
   * spread over both replicas) with every sidecar call and store request of the window counted, then
   * latencies at 70% of that maximum.
   */
  async distributed(): Promise<void> {
    const missing = missingDistributed();
    if (missing) return this.skip('distributed', missing);
    if (this.batonReady) {
      this.run.distributed = { ok: false, error: this.batonReady };
      return;
    }
    log('distributed: two Baton replicas, each beside its own daprd, on Cassandra, Elasticsearch and Redis');
    let cluster: DistributedCluster | undefined;
    let counters: StoreCounters | undefined;
    const replicaNames = ['a', 'b'];
    const profileDir = this.opts.profile ? mkdtempSync(join(tmpdir(), 'baton-bench-prof-')) : undefined;
    try {
      cluster = await startDistributedCluster(this.root, replicaNames, log, { cpuProfileDir: profileDir });
      const c = cluster;
      const store = new StoreCounters(
        c.keyspace,
        c.indexPrefix,
        c.redisPort,
        c.replicas.map((r) => r.url),
      );
      counters = store;
      const urls = c.replicas.map((r) => r.url);
      const counted = await this.countedDistributedWindow(c, store, urls, false);
      const figures: DistributedFigures = { replicas: c.replicas.length, ...counted.figures, latency: null, updateV2: null };
      const max = counted.max;
      log(
        `  poll-and-update workers: ${fmt(max.result.tasksPerSecond)} tasks/s, ${fmt(figures.sidecarCallsPerTask, 2)} sidecar round trips and ${fmt(figures.sidecarDeliveriesPerTask, 2)} deliveries from daprd per task, ${fmt(figures.storeCallsPerTask.cassandra, 2)} Cassandra requests per task`,
      );
      // The official JS SDK's TaskRunner updates through update-v2, which hands the next task over in the same call.
      try {
        const v2 = await this.countedDistributedWindow(c, store, urls, true);
        figures.updateV2 = { ...v2.figures, replicas: c.replicas.length };
        log(
          `  update-v2 workers: ${fmt(v2.max.result.tasksPerSecond)} tasks/s, ${fmt(v2.figures.sidecarCallsPerTask, 2)} sidecar round trips and ${fmt(v2.figures.sidecarDeliveriesPerTask, 2)} deliveries from daprd per task`,
        );
      } catch (e) {
        figures.updateV2Error = errorText(e);
        log(`  distributed update-v2 FAILED: ${errorText(e)}`);
      }
      if (max.result.workflowsPerSecond > 0) {
        const rate = Math.max(1, Math.round(max.result.workflowsPerSecond * this.opts.latencyLoad * 10) / 10);
        log(`  distributed latency: open loop at ${fmt(rate, 1)} workflow starts/s`);
        try {
          const lat = await this.drive<LatencyResult>(
            { kind: 'open-loop', baseUrl: urls, shape: 'simple3', settings: this.opts.worker, ratePerSecond: rate, timing: this.opts.latencyTiming },
            c.batonPids(),
            this.windowTimeout() + 60_000,
          );
          figures.latency = lat.result;
          log(
            `  start p99 ${fmt(lat.result.startLatencyMs?.p99, 1)} ms, update p99 ${fmt(lat.result.updateLatencyMs?.p99, 1)} ms, schedule-to-poll p99 ${fmt(lat.result.scheduleToPollMs?.p99, 1)} ms`,
          );
        } catch (e) {
          figures.latencyError = errorText(e);
          log(`  distributed latency FAILED: ${errorText(e)}`);
        }
      }
      this.run.distributed = { ok: true, result: figures, server: { cpuCores: max.cpuCores, rssMbPeak: null } };
    } catch (e) {
      this.run.distributed = { ok: false, error: errorText(e) };
      log(`  distributed FAILED: ${errorText(e)}`);
    } finally {
      await counters?.close();
      await cluster?.stop();
      if (profileDir) {
        for (const name of replicaNames) this.collectProfile(`distributed replica ${name}`, join(profileDir, name));
        rmSync(profileDir, { recursive: true, force: true });
      }
    }
  }

  /**
   * The distributed cluster grown from one replica to three (each beside its own daprd) on the same
   * placement, scheduler, Redis and engines, a counted closed-loop window at each size: whether tasks
   * per replica CPU-second stay flat, and where the rate stops growing on this machine and what is busy then.
   */
  async scaleOut(): Promise<void> {
    const missing = missingDistributed();
    if (missing) return this.skip('scale-out', missing);
    if (this.batonReady) {
      this.run.scaleOut = { ok: false, error: this.batonReady };
      return;
    }
    log('scale-out: the distributed cluster with 1, 2 and 3 replicas, each beside its own daprd, on the same engines');
    let cluster: DistributedCluster | undefined;
    const windows: ScaleOutWindow[] = [];
    const figures = (error?: string): ScaleOutFigures => {
      const points = scaleOutPoints(windows);
      return { points, verdict: judgeScaleOut(points, this.run.machine.cores), machineCores: this.run.machine.cores, ...(error ? { error } : {}) };
    };
    try {
      cluster = await startDistributedCluster(this.root, ['a'], log);
      const c = cluster;
      for (const name of ['a', 'b', 'c']) {
        if (!c.replicas.some((r) => r.name === name)) await c.addReplica(name);
        const urls = c.replicas.map((r) => r.url);
        const store = new StoreCounters(c.keyspace, c.indexPrefix, c.redisPort, urls);
        try {
          const w = await this.countedDistributedWindow(c, store, urls, false);
          windows.push({
            replicas: c.replicas.length,
            tasksPerSecond: w.max.result.tasksPerSecond,
            cpuCoresByGroup: w.figures.cpuCoresByGroup,
            loadProcessCpuCores: w.max.result.loadProcessCpuCores,
            machineBusyCores: w.figures.machineBusyCores ?? null,
            sidecarCallsPerTask: w.figures.sidecarCallsPerTask,
            cassandraRequestsPerTask: w.figures.storeCallsPerTask.cassandra,
            redisCommandsPerTask: w.figures.storeCallsPerTask.redisCommands,
            errors: w.max.result.errors.count,
          });
          log(
            `  ${c.replicas.length} replica(s): ${fmt(w.max.result.tasksPerSecond)} tasks/s, CPU cores ${Object.entries(w.figures.cpuCoresByGroup)
              .map(([k, v]) => `${k} ${fmt(v, 2)}`)
              .join(', ')}, load process ${fmt(w.max.result.loadProcessCpuCores, 2)}`,
          );
        } finally {
          await store.close();
        }
      }
      const f = figures();
      this.run.scaleOut = { ok: true, result: f, server: { cpuCores: null, rssMbPeak: null } };
      log(`  ${f.verdict?.reason ?? 'no window measured'}`);
    } catch (e) {
      // the windows measured before the failure still say something
      this.run.scaleOut =
        windows.length > 0 ? { ok: true, result: figures(errorText(e)), server: { cpuCores: null, rssMbPeak: null } } : { ok: false, error: errorText(e) };
      log(`  scale-out FAILED: ${errorText(e)}`);
    } finally {
      await cluster?.stop();
    }
  }

  async bullmq(): Promise<void> {
    log('BullMQ reference: 3-job chains, redis-server with appendonly yes, appendfsync everysec');
    let redis: RunningRedis | undefined;
    try {
      redis = await startRedis();
      const c = this.opts.worker.concurrencyPerType;
      const r = await this.drive<BullmqResult>(
        { kind: 'bullmq', redisPort: redis.port, concurrency: c, inFlightChains: 3 * this.opts.inFlightPerType, timing: this.opts.timing },
        redis.pid,
        this.windowTimeout(),
      );
      this.run.bullmq = { ok: true, result: r.result, server: { cpuCores: r.cpuCores, rssMbPeak: null } };
      log(`  ${fmt(r.result.jobsPerSecond)} jobs/s`);
    } catch (e) {
      this.run.bullmq = { ok: false, error: errorText(e) };
      log(`  FAILED: ${errorText(e)}`);
    } finally {
      await redis?.stop();
    }
  }

  async throughput(shape: 'simple3' | 'steps13', useUpdateV2: boolean, soak: boolean): Promise<Outcome<ThroughputResult>> {
    const types = shape === 'simple3' ? 3 : 5;
    const soakWorkflows = soak ? this.opts.soakWorkflows : 0;
    const label = `${shape}${useUpdateV2 ? ' (update-v2)' : ''} closed loop${soakWorkflows ? `, then on to ${fmt(soakWorkflows)} workflows` : ''}`;
    log(label);
    const soakTimeoutMs = Math.max(60_000, soakWorkflows * 10);
    let cpuCores: number | null = null;
    const outcome = await this.withBaton(label, async (baton) => {
      const pid = baton.child.pid;
      const samples: RssSample[] = [];
      const heap: HeapSample[] = [];
      const r = await this.drive<ThroughputResult>(
        {
          kind: 'closed-loop',
          baseUrl: baton.baseUrl,
          shape,
          settings: this.opts.worker,
          inFlightWorkflows: types * this.opts.inFlightPerType,
          timing: this.opts.timing,
          useUpdateV2,
          soakWorkflows,
          soakTimeoutMs,
        },
        pid,
        this.windowTimeout() + (soakWorkflows ? soakTimeoutMs : 0),
        (name, data) => {
          if (!soakWorkflows || (name !== 'progress' && name !== 'drained')) return;
          try {
            samples.push({ completedWorkflows: Number(data.completedWorkflows), rssMb: readProc(pid).rssMb });
          } catch {
            /* the process is gone; the outcome says why */
          }
          void usedHeapMb(baton.baseUrl).then((mb) => mb !== undefined && heap.push({ completedWorkflows: Number(data.completedWorkflows), heapUsedMb: mb }));
        },
      );
      cpuCores = r.cpuCores;
      if (soakWorkflows) {
        const last = samples[samples.length - 1];
        this.run.memory.samples = samples;
        this.run.memory.soakCompleted = last?.completedWorkflows ?? null;
        this.run.memory.rssMbAfterSoak = last?.rssMb ?? null;
        this.run.memory.trend = judgeRssTrend(samples);
        this.run.memory.heapFloor = judgeHeapFloor(heap.sort((a, b) => a.completedWorkflows - b.completedWorkflows));
      }
      log(`  ${fmt(r.result.tasksPerSecond)} tasks/s, ${fmt(r.result.workflowsPerSecond, 1)} workflows/s, errors ${r.result.errors.count}`);
      return r.result;
    });
    return outcome.ok ? { ...outcome, server: { ...outcome.server, cpuCores } } : outcome;
  }

  async latency(): Promise<void> {
    const s3 = this.run.simple3;
    if (!s3 || !s3.ok || !(s3.result.workflowsPerSecond > 0)) {
      this.run.latency = { ok: false, error: 'needs the maximum rate of the 3-task closed loop, which was not measured' };
      return;
    }
    const rate = Math.max(1, Math.round(s3.result.workflowsPerSecond * this.opts.latencyLoad * 10) / 10);
    log(`latency: open loop at ${fmt(rate, 1)} workflow starts/s (${this.opts.latencyLoad * 100}% of max)`);
    let cpuCores: number | null = null;
    const outcome = await this.withBaton('latency', async (baton) => {
      const r = await this.drive<LatencyResult>(
        { kind: 'open-loop', baseUrl: baton.baseUrl, shape: 'simple3', settings: this.opts.worker, ratePerSecond: rate, timing: this.opts.latencyTiming },
        baton.child.pid,
        this.windowTimeout() + 30_000,
      );
      cpuCores = r.cpuCores;
      const l = r.result;
      log(
        `  start p99 ${fmt(l.startLatencyMs?.p99, 1)} ms, update p99 ${fmt(l.updateLatencyMs?.p99, 1)} ms, schedule-to-poll p99 ${fmt(l.scheduleToPollMs?.p99, 1)} ms`,
      );
      return l;
    });
    this.run.latency = outcome.ok ? { ...outcome, server: { ...outcome.server, cpuCores } } : outcome;
  }

  async inFlight(): Promise<void> {
    for (const level of this.opts.inFlightLevels) {
      log(`in flight: ${fmt(level)} workflows pre-started, then drained`);
      const timeoutMs = Math.max(30_000, level * 12);
      const outcome = await this.withBaton(`in-flight ${level}`, async (baton) => {
        const pid = baton.child.pid;
        let rssMbWithBacklog: number | null = null;
        let rssMbAfterDrain: number | null = null;
        const r = await this.drive<InFlightResult>(
          { kind: 'in-flight', baseUrl: baton.baseUrl, shape: 'simple3', settings: this.opts.worker, level, timeoutMs },
          pid,
          timeoutMs + 30_000,
          (name) => {
            try {
              if (name === 'prestarted') rssMbWithBacklog = readProc(pid).rssMb;
              if (name === 'drained') rssMbAfterDrain = readProc(pid).rssMb;
            } catch {
              /* the process is gone; the outcome says why */
            }
          },
        );
        log(`  started at ${fmt(r.result.startsPerSecond)}/s, drained ${fmt(r.result.drained)} at ${fmt(r.result.tasksPerSecond)} tasks/s`);
        const figures: InFlightFigures = { ...r.result, rssMbWithBacklog, rssMbAfterDrain };
        return figures;
      });
      this.run.inFlight.push(outcome);
    }
  }

  /**
   * Two embedded Batons at once, each with its own data directory and its own load process running the
   * 3-task closed loop: what the machine carries when the work is split over two independent event
   * loops, the most a sharded embedded profile could get here. Not a Baton figure: the two share nothing.
   * The first server runs a window alone just before, with the same warm-up, so the scaling compares
   * windows seconds apart rather than phases minutes apart (the host's speed drifts within a run).
   */
  async twoServers(): Promise<void> {
    if (this.batonReady) {
      this.run.twoServers = { ok: false, error: this.batonReady };
      return;
    }
    log('two servers: one embedded Baton alone, then two independent ones, each driven by its own load process, at the same time');
    const second = new LoadDriver();
    const servers: RunningBaton[] = [];
    try {
      for (let i = 0; i < 2; i++) servers.push(await startBaton(this.root));
      // Two cold servers compile their hot paths at once: quick mode's 1.5 s warm-up left both half-speed.
      const timing: Timing = { warmupMs: Math.max(this.opts.timing.warmupMs, 5000), windowMs: Math.max(this.opts.timing.windowMs, 5000) };
      const closedLoop = (b: RunningBaton, driver: LoadDriver): Promise<ServerWindow> => {
        const cpu = new WindowCpu([b.child.pid]);
        return driver
          .run<ThroughputResult>(
            {
              kind: 'closed-loop',
              baseUrl: b.baseUrl,
              shape: 'simple3',
              settings: this.opts.worker,
              inFlightWorkflows: 3 * this.opts.inFlightPerType,
              timing,
              useUpdateV2: false,
              soakWorkflows: 0,
              soakTimeoutMs: 60_000,
            },
            (name) => cpu.onEvent(name),
            timing.warmupMs + timing.windowMs + 45_000,
          )
          .then((throughput) => ({ throughput, cpuCores: cpu.cores }));
      };
      const [first, other] = servers as [RunningBaton, RunningBaton];
      const alone = await closedLoop(first, this.driver);
      log(`  alone: ${fmt(alone.throughput.tasksPerSecond)} tasks/s`);
      const together = await Promise.all([closedLoop(first, this.driver), closedLoop(other, second)]);
      log(`  together: ${together.map((r) => `${fmt(r.throughput.tasksPerSecond)} tasks/s`).join(' + ')}`);
      this.run.twoServers = {
        ok: true,
        result: { alone, servers: together },
        server: { cpuCores: sumOrNull(together.map((r) => r.cpuCores)), rssMbPeak: null },
      };
    } catch (e) {
      this.run.twoServers = { ok: false, error: errorText(e) };
      log(`  FAILED: ${errorText(e)}`);
    } finally {
      second.stop();
      for (const b of servers) await b.stop();
    }
  }

  async all(): Promise<void> {
    const t0 = performance.now();
    try {
      if (this.has('ceiling')) await this.ceiling();
      if (this.has('bullmq')) await this.bullmq();
      const needsBaton = this.opts.phases.some((p) => !PEER_ONLY_PHASES.includes(p));
      if (needsBaton) this.build();
      if (this.has('simple3')) this.run.simple3 = await this.throughput('simple3', false, this.opts.soakWorkflows > 0);
      if (this.has('steps13')) this.run.steps13 = await this.throughput('steps13', false, false);
      if (this.has('update-v2')) this.run.updateV2 = await this.throughput('simple3', true, false);
      if (this.has('latency')) await this.latency();
      if (this.has('in-flight')) await this.inFlight();
      if (this.has('two-servers')) await this.twoServers();
      if (this.has('conductor')) await this.conductor();
      if (this.has('dapr-workflow')) await this.daprWorkflow();
      if (this.has('restate')) await this.restate();
      if (this.has('conductor-pg')) await this.conductorPg();
      if (this.has('distributed')) await this.distributed();
      if (this.has('scale-out')) await this.scaleOut();
    } finally {
      this.driver.stop();
      this.run.memory.rssMbPeak = this.peakRssMb > 0 ? this.peakRssMb : null;
      this.run.durationSeconds = Math.round((performance.now() - t0) / 100) / 10;
    }
  }

  failures(): string[] {
    const r = this.run;
    const named: [string, Outcome<unknown> | undefined][] = [
      ['ceiling', r.ceiling],
      ['raw ceiling', r.rawCeiling],
      ['conductor', r.conductor],
      ['dapr-workflow', r.daprWorkflow],
      ['restate', r.restate],
      ['conductor-pg', r.conductorPg],
      ['distributed', r.distributed],
      ['scale-out', r.scaleOut],
      ['bullmq', r.bullmq],
      ['simple3', r.simple3],
      ['steps13', r.steps13],
      ['update-v2', r.updateV2],
      ['latency', r.latency],
      ['two-servers', r.twoServers],
      ...r.inFlight.map((o, i): [string, Outcome<unknown>] => [`in-flight ${this.opts.inFlightLevels[i]}`, o]),
    ];
    return named.filter(([, o]) => o && !o.ok).map(([n]) => n);
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  // where `npm run services` recorded Conductor's jar, daprd and the engines
  loadServiceEnv();
  const root = findProjectRoot(__dirname);
  const bench = new Bench(opts, root);
  const abort = (): void => {
    killAllManagedChildren();
    process.exit(130);
  };
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  log(`mode ${opts.mode}; phases ${opts.phases.join(', ')} (of ${ALL_PHASES.join(', ')})`);
  for (const s of opts.skippedPhases) log(`${s.phase}: skipped: ${s.reason}`);
  try {
    await bench.all();
  } finally {
    killAllManagedChildren();
  }
  if (opts.baseline) bench.run.baseline = readBaseline(resolve(root, opts.baseline));
  const latest = buildLatest(bench.run);
  const out = resolve(root, opts.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(latest, null, 2) + '\n');
  process.stdout.write(renderReport(latest) + '\n');
  log(`results written to ${out}`);
  const failed = bench.failures();
  if (failed.length > 0) {
    log(`phases that failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  killAllManagedChildren();
  if (e instanceof UsageRequested) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/** The start commit's distributed tasks/s from its latest.json (null when it has none). */
function readBaseline(file: string): { file: string; distributedTasksPerSecond: number | null } {
  const j = JSON.parse(readFileSync(file, 'utf8')) as { distributedTasksPerSecond?: number | null };
  return { file, distributedTasksPerSecond: typeof j.distributedTasksPerSecond === 'number' ? j.distributedTasksPerSecond : null };
}

/** Baton's used JS heap in MB from its Prometheus endpoint (`nodejs_heap_size_used_bytes`); undefined when unreadable. */
async function usedHeapMb(baseUrl: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
    const m = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    return m ? Number(m[1]) / 1048576 : undefined;
  } catch {
    return undefined;
  }
}
