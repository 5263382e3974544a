import { RESTATE_HANDLER, RESTATE_SERVICE } from '../processes/restate-names';
import { LatencyRecorder } from '../stats/percentiles';
import { Pool } from 'undici';
import type { LoadCommand, RestateResult } from './protocol';
import { closedLoopWorkflows, type Emit } from './scenario-kit';

export type RestateArgs = Omit<Extract<LoadCommand, { kind: 'restate' }>, 'kind'>;

/**
 * Restate at its maximum rate: `inFlightWorkflows` loops each invoke the durable 3-step handler through
 * restate-server's HTTP ingress (its unix socket) and wait for its answer (the invocation completed), then start the next.
 */
export async function runRestate(a: RestateArgs, emit: Emit): Promise<RestateResult> {
  const pool = new Pool('http://localhost', {
    socketPath: a.ingressSocket,
    connections: a.inFlightWorkflows,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const latency = new LatencyRecorder();
  let seq = 0;
  try {
    const measured = await closedLoopWorkflows({
      peer: 'Restate',
      inFlight: a.inFlightWorkflows,
      timing: a.timing,
      emit,
      one: async () => {
        const n = ++seq;
        const t0 = performance.now();
        const res = await pool.request({
          method: 'POST',
          path: `/${RESTATE_SERVICE}/${RESTATE_HANDLER}`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n }),
        });
        const body = (await res.body.json()) as { result?: unknown };
        if (res.statusCode !== 200 || body.result !== n) throw new Error(`invocation ${n}: HTTP ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
        latency.record(performance.now() - t0);
        return true;
      },
      onWindowStart: () => latency.reset(),
    });
    return {
      workflowsPerSecond: measured.workflowsPerSecond,
      stepsPerSecond: Math.round(measured.workflowsPerSecond * 3),
      inFlightWorkflows: a.inFlightWorkflows,
      completionLatencyMs: latency.summary(),
      loadProcessCpuCores: measured.loadProcessCpuCores,
      errors: measured.errors,
    };
  } finally {
    await pool.close().catch(() => undefined);
  }
}
