/**
 * Pure normalisation of execution documents for the differential suite: keeps the fields that
 * carry execution semantics, masks what differs from run to run (ids, times), and treats absent,
 * null and empty as one value (Jackson's inclusion settings are serialisation, not behaviour).
 *
 * Not compared: echoes of definitions (workflowDefinition, workflowTask, taskDefinition),
 * bookkeeping that only Conductor keeps (history, ownerApp, executionMetadata, queueWaitTime,
 * firstStartTime, rateLimited, subworkflowChanged) and times (masked to "set" or "unset").
 */

const WORKFLOW_FIELDS = [
  'workflowName',
  'workflowVersion',
  'status',
  'correlationId',
  'input',
  'output',
  'variables',
  'reasonForIncompletion',
  'failedReferenceTaskNames',
  'failedTaskNames',
  'priority',
  'parentWorkflowId',
  'parentWorkflowTaskId',
  'event',
  'tasks',
] as const;

const TASK_FIELDS = [
  'taskType',
  'taskDefName',
  'referenceTaskName',
  'status',
  'inputData',
  'outputData',
  'reasonForIncompletion',
  'retryCount',
  'seq',
  'retried',
  'executed',
  'iteration',
  'pollCount',
  'callbackAfterSeconds',
  'startDelayInSeconds',
  'workerId',
  'retriedTaskId',
  'subWorkflowId',
  'loopOverTask',
  'responseTimeoutSeconds',
] as const;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME_KEY = /(Time|time|Timestamp)$/;
// How late a sweeper noticed a timeout is run-specific ("Workflow timed out after 3 seconds").
const RUN_SECONDS = /(timed out after )\d+ seconds/g;

/** Numbers each distinct id by first appearance, so references between documents stay comparable. */
export class IdMasker {
  private seen = new Map<string, string>();
  mask(s: string): string {
    return s.replace(UUID, (id) => {
      const key = id.toLowerCase();
      if (!this.seen.has(key)) this.seen.set(key, `<id${this.seen.size + 1}>`);
      return this.seen.get(key)!;
    });
  }
}

const isEmpty = (v: unknown): boolean =>
  v === null ||
  v === undefined ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

/** Masks ids and times everywhere, drops empty values, sorts nothing (order is behaviour). */
export function scrub(value: unknown, ids: IdMasker, key = ''): unknown {
  if (typeof value === 'string') return ids.mask(value).replace(RUN_SECONDS, '$1<n> seconds');
  if (typeof value === 'number' && TIME_KEY.test(key)) return value > 0 ? '<time>' : value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, ids));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // Keys in order, so ids are numbered the same whatever order a server serialises fields in.
    for (const [k, v] of Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (isEmpty(v)) continue;
      out[ids.mask(k)] = scrub(v, ids, k);
    }
    return out;
  }
  return value;
}

const pick = (obj: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (!isEmpty(obj[f])) out[f] = obj[f];
  return out;
};

/** An HTTP task's response headers carry the run's date and connection details: compared as present or absent. */
function maskHttpHeaders(task: Record<string, any>): Record<string, unknown> {
  const response = task.outputData?.response;
  if (task.taskType !== 'HTTP' || !response?.headers) return task;
  return { ...task, outputData: { ...task.outputData, response: { ...response, headers: '<headers>' } } };
}

/** A workflow execution as compared: semantic fields of it and of each task, ids and times masked. */
export function normaliseWorkflow(wf: any, ids = new IdMasker()): unknown {
  const picked = pick(wf ?? {}, WORKFLOW_FIELDS);
  if (Array.isArray(wf?.tasks)) picked.tasks = wf.tasks.map((t: any) => maskHttpHeaders(pick(t, TASK_FIELDS)));
  // Set semantics in Conductor (a HashSet): order is not behaviour.
  if (Array.isArray(picked.failedReferenceTaskNames)) picked.failedReferenceTaskNames = [...(picked.failedReferenceTaskNames as string[])].sort();
  if (Array.isArray(picked.failedTaskNames)) picked.failedTaskNames = [...(picked.failedTaskNames as string[])].sort();
  return scrub(picked, ids);
}

/** One difference between the two servers' observations. */
export interface Difference {
  path: string;
  conductor: unknown;
  baton: unknown;
}

/** Deep comparison; objects key by key, arrays index by index. */
export function diff(conductor: unknown, baton: unknown, path = ''): Difference[] {
  if (conductor === baton) return [];
  const bothObjects = conductor && baton && typeof conductor === 'object' && typeof baton === 'object';
  if (bothObjects && Array.isArray(conductor) === Array.isArray(baton)) {
    if (Array.isArray(conductor) && Array.isArray(baton)) {
      const out: Difference[] = [];
      for (let i = 0; i < Math.max(conductor.length, baton.length); i++) out.push(...diff(conductor[i], baton[i], `${path}[${i}]`));
      return out;
    }
    const c = conductor as Record<string, unknown>;
    const b = baton as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(c), ...Object.keys(b)])];
    return keys.flatMap((k) => diff(c[k], b[k], path ? `${path}.${k}` : k));
  }
  return [{ path, conductor, baton }];
}
