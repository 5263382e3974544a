import { PayloadTooLargeError, type ExecutionCommit } from '../../../../src/store/ports';
import { assertPayloadLimits, DEFAULT_PAYLOAD_LIMITS, jsonBytes, payloadLimitViolation } from '../../../../src/store/payload-limits';
import { makeTask, makeWorkflowRecord } from '../../../contracts/fixtures';

const limits = { taskPayloadBytes: 100, workflowPayloadBytes: 200 };
const commit = (over: Partial<ExecutionCommit> = {}): ExecutionCommit => ({
  workflow: makeWorkflowRecord({ workflowId: 'wf-1' }),
  upsertTasks: [],
  deleteTaskIds: [],
  outbox: [],
  expectedRev: 0,
  ...over,
});

describe('payload limits', () => {
  it('defaults to Conductor’s thresholds: 3 MB per task payload, 10 MB per workflow payload; task logs 500 lines of 4 KiB', () => {
    expect(DEFAULT_PAYLOAD_LIMITS).toEqual({
      taskPayloadBytes: 3 * 1024 * 1024,
      workflowPayloadBytes: 10 * 1024 * 1024,
      taskLogs: { lineBytes: 4096, lines: 500 },
    });
  });

  it('measures UTF-8 bytes of the JSON, not characters', () => {
    expect(jsonBytes({ a: 'é' })).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(jsonBytes({ a: 'é' })).toBe(10);
    expect(jsonBytes(undefined)).toBe(2);
  });

  it('accepts payloads at the limit', () => {
    const output = { s: 'x'.repeat(200 - 8) }; // {"s":"…"} is 8 bytes of punctuation
    expect(jsonBytes(output)).toBe(200);
    expect(payloadLimitViolation(commit({ workflow: makeWorkflowRecord({ workflowId: 'wf-1', output }) }), limits)).toBeUndefined();
  });

  it('names the workflow field and both sizes when a workflow payload is too large', () => {
    const input = { s: 'x'.repeat(201) };
    expect(payloadLimitViolation(commit({ workflow: makeWorkflowRecord({ workflowId: 'wf-1', input }) }), limits)).toBe(
      'workflow wf-1 input is 209 bytes, over the limit of 200 bytes for workflow payloads',
    );
  });

  it('names the task, its field and both sizes when a task payload is too large', () => {
    const t = makeTask({ taskId: 't-9', referenceTaskName: 'charge', outputData: { s: 'x'.repeat(100) } });
    expect(payloadLimitViolation(commit({ upsertTasks: [makeTask(), t] }), limits)).toBe(
      'task charge (t-9) of workflow wf-1 outputData is 108 bytes, over the limit of 100 bytes for task payloads',
    );
  });

  it('throws PayloadTooLargeError from assertPayloadLimits', () => {
    const t = makeTask({ inputData: { s: 'x'.repeat(100) } });
    expect(() => assertPayloadLimits(commit({ upsertTasks: [t] }), limits)).toThrow(PayloadTooLargeError);
    expect(() => assertPayloadLimits(commit({ upsertTasks: [t] }), limits)).toThrow(/inputData is 108 bytes/);
    expect(() => assertPayloadLimits(commit(), limits)).not.toThrow();
  });
});
