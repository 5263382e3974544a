import { type DaprdCluster, missingDapr, startDaprdCluster, type StartedDaprd } from '../../test/support/dapr/daprd-processes';
import { trackForeignPid } from './managed-child';

export { missingDapr };

export interface RunningDaprWorkflowHost {
  /** daprd's gRPC port: the load process's WorkflowRuntime and DaprWorkflowClient connect there. */
  daprGrpcPort: number;
  daprd: StartedDaprd;
  /** Pids whose CPU is the peer's server side (daprd, redis-server, scheduler, placement). */
  serverPids: number[];
  stop(): Promise<void>;
}

/**
 * The Dapr Workflow peer's server side, all real binaries from `npm run services -- dapr`: a
 * redis-server (appendonly, fsync every second) as actor state store, placement, scheduler (workflow timers and reminders) and one
 * daprd for the workflow app. The app itself (workflow and activities) runs in the load process,
 * connected over gRPC, as a Dapr Workflow app runs beside its sidecar.
 */
export async function startDaprWorkflowHost(): Promise<RunningDaprWorkflowHost> {
  // AOF with fsync every second, as for BullMQ's Redis: the workflow state survives a crash as Baton's does
  const cluster: DaprdCluster = await startDaprdCluster({ redisAof: true });
  let daprd: StartedDaprd;
  try {
    // no app channel: workflow work items flow over the gRPC stream the WorkflowRuntime opens
    daprd = await cluster.addSidecar('workflow-app', { appId: 'bench-dapr-workflow', appPort: 0, noApp: true });
  } catch (e) {
    await cluster.close();
    throw e;
  }
  const pids = cluster
    .processes()
    .map((p) => p.child.pid)
    .filter((p): p is number => p !== undefined);
  const untrack = pids.map((p) => trackForeignPid(p));
  return {
    daprGrpcPort: daprd.daprGrpcPort,
    daprd,
    serverPids: pids,
    async stop() {
      await daprd.stop().catch(() => undefined);
      await cluster.close();
      for (const u of untrack) u();
    },
  };
}
