import { Job, Queue, Worker } from 'bullmq';
import { LatencyRecorder } from '../stats/percentiles';
import type { BullmqResult, Timing } from './protocol';
import { cpuMeter, Emit, sleep } from './scenario-kit';

interface ChainData {
  chain: number;
  n: number;
  /** performance.now() of the process when the job was added, for job latency (same process). */
  addedAt: number;
}

/**
 * The reference: a "workflow" is a chain of three jobs on three queues; each processor adds the next
 * job before it returns (as Baton schedules the next task when the update arrives). Workers run in this
 * process, so there is no HTTP round trip. `inFlightChains` chains are kept going (closed loop).
 */
export async function runBullmq(redisPort: number, concurrency: number, inFlightChains: number, timing: Timing, emit: Emit): Promise<BullmqResult> {
  const connection = { host: '127.0.0.1', port: redisPort, maxRetriesPerRequest: null };
  const prefix = `bench${process.pid}`;
  const names = ['bench-step1', 'bench-step2', 'bench-step3'];
  const queues = names.map((name) => new Queue<ChainData>(name, { connection, prefix }));
  const latency = new LatencyRecorder();
  let jobsDone = 0;
  let chainsDone = 0;
  let nextChain = 0;
  let running = true;
  let errors = 0;
  const jobOptions = { attempts: 1 };

  const workers = names.map(
    (name, i) =>
      new Worker<ChainData>(
        name,
        async (job: Job<ChainData>) => {
          const next = queues[i + 1];
          if (next) await next.add('step', { ...job.data, addedAt: performance.now() }, jobOptions);
          return { v: job.data.n };
        },
        { connection, prefix, concurrency },
      ),
  );
  const startChain = (): Promise<unknown> =>
    (queues[0] as Queue<ChainData>).add('step', { chain: nextChain, n: nextChain++, addedAt: performance.now() }, jobOptions);
  workers.forEach((w) =>
    w.on('error', () => {
      errors++;
    }),
  );
  workers.forEach((w, i) =>
    w.on('completed', (job: Job<ChainData>) => {
      jobsDone++;
      latency.record(performance.now() - job.data.addedAt);
      if (i === names.length - 1) {
        chainsDone++;
        if (running) void startChain().catch(() => undefined);
      }
    }),
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  await (queues[0] as Queue<ChainData>).addBulk(
    Array.from({ length: inFlightChains }, () => ({ name: 'step', data: { chain: nextChain, n: nextChain++, addedAt: performance.now() }, opts: jobOptions })),
  );

  await sleep(timing.warmupMs);
  const cpu = cpuMeter();
  latency.reset();
  const from = { jobsDone, chainsDone, at: performance.now() };
  emit('window-start');
  await sleep(timing.windowMs);
  const seconds = (performance.now() - from.at) / 1000;
  const result: BullmqResult = {
    jobsPerSecond: Math.round((jobsDone - from.jobsDone) / seconds),
    chainsPerSecond: Math.round(((chainsDone - from.chainsDone) / seconds) * 10) / 10,
    jobLatencyMs: latency.summary(),
    concurrencyPerQueue: concurrency,
    inFlightChains,
    loadProcessCpuCores: cpu(),
    errors,
  };
  emit('window-end');
  running = false;
  // let active jobs finish (each adds at most one job), so nothing writes to a closed connection
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(queues.map((q) => q.close()));
  return result;
}
