import { DEFAULT_JSONPATH_LIMITS } from '../../src/engine/jsonpath-budget';
import type { EngineEnv } from '../../src/engine/state';
import type { TaskDef } from '../../src/model/definitions';

/** An engine environment with small limits, for tests that host a WorkflowActor: time and ids are the caller's. */
export function smallEngineEnv(at: { now: number; newId: () => string; taskDef: (name: string) => TaskDef | undefined }): EngineEnv {
  return {
    ...at,
    derivedId: (seed) => `derived(${seed})`,
    doWhileMaxIterations: 100,
    jsonPathMaxSteps: DEFAULT_JSONPATH_LIMITS.maxSteps,
    jsonPathMaxDepth: DEFAULT_JSONPATH_LIMITS.maxDepth,
    maxSubWorkflowDepth: 8,
    maxWorkflowGenerations: 64,
    maxForkWidth: 100,
    maxTasksPerExecution: 1000,
    taskPayloadMaxBytes: 1 << 20,
    workflowPayloadMaxBytes: 1 << 20,
    isDomainActive: () => false,
    hostName: 'test',
  };
}
