import { DaprWorkflowClient, LogLevel, WorkflowActivityContext, WorkflowContext, WorkflowRuntime, WorkflowRuntimeStatus } from '@dapr/dapr';
import { LatencyRecorder } from '../stats/percentiles';
import type { DaprWorkflowResult, LoadCommand } from './protocol';
import { cpuMeter, Emit, every, sleep } from './scenario-kit';

export type DaprWorkflowArgs = Omit<Extract<LoadCommand, { kind: 'dapr-workflow' }>, 'kind'>;

// The same 3-step chain as the bench's 3-task SIMPLE workflow: each step reads its predecessor's output
// and answers at once with a tiny output.
const step = (by: string) => (_ctx: WorkflowActivityContext, input: { v: unknown }) => ({ v: input?.v ?? null, by });
const STEPS = ['benchStepA', 'benchStepB', 'benchStepC'] as const;
const WORKFLOW = 'benchChain3';

function* benchChain3(ctx: WorkflowContext, input: { n: number }): Generator<unknown, unknown, { v: unknown }> {
  const a = yield ctx.callActivity(STEPS[0], { v: input.n });
  const b = yield ctx.callActivity(STEPS[1], { v: a.v });
  const c = yield ctx.callActivity(STEPS[2], { v: b.v });
  return { result: c.v };
}

/**
 * Dapr Workflow at its maximum rate: the workflow app (runtime with the chain and its three activities)
 * and the client both run here, against one real daprd; `inFlightWorkflows` loops each schedule a
 * workflow and wait for its completion, then start the next.
 */
export async function runDaprWorkflow(a: DaprWorkflowArgs, emit: Emit): Promise<DaprWorkflowResult> {
  const options = { daprHost: '127.0.0.1', daprPort: String(a.daprGrpcPort), logger: { level: LogLevel.Error } };
  const runtime = new WorkflowRuntime(options).registerWorkflowWithName(WORKFLOW, benchChain3 as never);
  for (const name of STEPS) runtime.registerActivityWithName(name, step(name));
  await runtime.start();
  const client = new DaprWorkflowClient(options);
  const startLatency = new LatencyRecorder();
  const completionLatency = new LatencyRecorder();
  const errors = { count: 0, samples: [] as string[] };
  let completed = 0;
  let failed = 0;
  let seq = 0;
  let running = true;
  const noteError = (e: unknown): void => {
    errors.count++;
    if (errors.samples.length < 5) errors.samples.push(e instanceof Error ? e.message.slice(0, 300) : String(e));
  };
  const loop = async (): Promise<void> => {
    while (running) {
      const t0 = performance.now();
      try {
        const id = await client.scheduleNewWorkflow(WORKFLOW, { n: ++seq });
        startLatency.record(performance.now() - t0);
        const state = await client.waitForWorkflowCompletion(id, false, 120);
        if (state?.runtimeStatus === WorkflowRuntimeStatus.COMPLETED) {
          completed++;
          completionLatency.record(performance.now() - t0);
        } else {
          failed++;
          noteError(new Error(`workflow ${id} ended ${state?.runtimeStatus ?? 'unknown'}`));
        }
      } catch (e) {
        noteError(e);
        await sleep(100);
      }
    }
  };
  const stopProgress = every(1000, () => emit('progress', { completedWorkflows: completed, errors: errors.count }));
  const loops = Array.from({ length: a.inFlightWorkflows }, loop);
  try {
    // the first workflow proves the runtime is connected before the warm-up counts
    const deadline = performance.now() + 60_000;
    while (completed === 0 && performance.now() < deadline) await sleep(100);
    if (completed === 0) throw new Error(`no Dapr workflow completed within 60 s (errors: ${errors.samples.join('; ') || 'none'})`);
    await sleep(a.timing.warmupMs);
    const cpu = cpuMeter();
    startLatency.reset();
    completionLatency.reset();
    const from = { completed, at: performance.now() };
    emit('window-start');
    await sleep(a.timing.windowMs);
    const seconds = (performance.now() - from.at) / 1000;
    const workflowsPerSecond = Math.round(((completed - from.completed) / seconds) * 10) / 10;
    const loadProcessCpuCores = cpu();
    emit('window-end');
    return {
      workflowsPerSecond,
      activitiesPerSecond: Math.round(workflowsPerSecond * 3),
      inFlightWorkflows: a.inFlightWorkflows,
      startLatencyMs: startLatency.summary(),
      completionLatencyMs: completionLatency.summary(),
      loadProcessCpuCores,
      failedWorkflows: failed,
      errors,
    };
  } finally {
    running = false;
    stopProgress();
    await Promise.race([Promise.all(loops), sleep(15_000)]);
    await client.stop().catch(() => undefined);
    await runtime.stop().catch(() => undefined);
  }
}
