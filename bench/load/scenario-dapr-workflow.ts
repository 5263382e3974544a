import { DaprWorkflowClient, LogLevel, WorkflowActivityContext, WorkflowContext, WorkflowRuntime, WorkflowRuntimeStatus } from '@dapr/dapr';
import { LatencyRecorder } from '../stats/percentiles';
import type { DaprWorkflowResult, LoadCommand } from './protocol';
import { closedLoopWorkflows, type Emit } from './scenario-kit';

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
  let failed = 0;
  let seq = 0;
  try {
    const measured = await closedLoopWorkflows({
      peer: 'Dapr',
      inFlight: a.inFlightWorkflows,
      timing: a.timing,
      emit,
      one: async () => {
        const t0 = performance.now();
        const id = await client.scheduleNewWorkflow(WORKFLOW, { n: ++seq });
        startLatency.record(performance.now() - t0);
        const state = await client.waitForWorkflowCompletion(id, false, 120);
        if (state?.runtimeStatus !== WorkflowRuntimeStatus.COMPLETED) {
          failed++;
          throw new Error(`workflow ${id} ended ${state?.runtimeStatus ?? 'unknown'}`);
        }
        completionLatency.record(performance.now() - t0);
        return true;
      },
      onWindowStart: () => {
        startLatency.reset();
        completionLatency.reset();
      },
    });
    return {
      workflowsPerSecond: measured.workflowsPerSecond,
      activitiesPerSecond: Math.round(measured.workflowsPerSecond * 3),
      inFlightWorkflows: a.inFlightWorkflows,
      startLatencyMs: startLatency.summary(),
      completionLatencyMs: completionLatency.summary(),
      loadProcessCpuCores: measured.loadProcessCpuCores,
      failedWorkflows: failed,
      errors: measured.errors,
    };
  } finally {
    await client.stop().catch(() => undefined);
    await runtime.stop().catch(() => undefined);
  }
}
