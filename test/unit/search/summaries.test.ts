import { TaskSummarySchema, WorkflowSummarySchema } from '../../../src/model/summaries';
import { isoTime, summarizeTask, summarizeWorkflow } from '../../../src/search/summaries';
import { makeTask, makeWorkflowRecord, T0 } from '../../contracts/fixtures';

describe('isoTime', () => {
  it('formats yyyy-MM-ddTHH:mm:ss.SSSZ in UTC', () => {
    expect(isoTime(T0 + 1_234)).toBe('2024-01-01T00:00:01.234Z');
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('summarizeWorkflow', () => {
  it('summarises a finished workflow as Conductor does, input/output as JSON text', () => {
    const w = makeWorkflowRecord({
      workflowId: 'wf-1',
      workflowName: 'order_flow',
      workflowVersion: 3,
      status: 'FAILED',
      correlationId: 'c-1',
      startTime: T0,
      createTime: T0,
      updateTime: T0 + 900,
      endTime: T0 + 800,
      input: { a: 1, b: ['x'] },
      output: { r: 'é' },
      reasonForIncompletion: 'boom',
      event: 'evt',
      failedReferenceTaskNames: ['t1', 't2'],
      failedTaskNames: ['def1', 'def2'],
      priority: 7,
      createdBy: 'me',
      taskToDomain: { def1: 'eu' },
      externalInputPayloadStoragePath: 'path/in.json',
    });
    const s = summarizeWorkflow(w);
    expect(s).toEqual({
      workflowType: 'order_flow',
      version: 3,
      workflowId: 'wf-1',
      correlationId: 'c-1',
      startTime: '2024-01-01T00:00:00.000Z',
      updateTime: '2024-01-01T00:00:00.900Z',
      endTime: '2024-01-01T00:00:00.800Z',
      status: 'FAILED',
      // The input is kept at its path (outside the row): summarised empty, as Conductor's row holds it.
      input: '{}',
      output: '{"r":"é"}',
      reasonForIncompletion: 'boom',
      executionTime: 800,
      event: 'evt',
      failedReferenceTaskNames: 't1,t2',
      failedTaskNames: ['def1', 'def2'],
      priority: 7,
      inputSize: 2,
      outputSize: 9,
      createdBy: 'me',
      parentWorkflowId: '',
      taskToDomain: { def1: 'eu' },
      externalInputPayloadStoragePath: 'path/in.json',
    });
    expect(WorkflowSummarySchema.parse(s)).toEqual(s);
  });

  it('omits unset fields, has no endTime and zero executionTime while running, and keeps the parent', () => {
    const s = summarizeWorkflow(makeWorkflowRecord({ workflowId: 'wf-2', startTime: T0, parentWorkflowId: 'wf-parent' }));
    expect(s.endTime).toBeUndefined();
    expect(s.executionTime).toBe(0);
    expect(s.parentWorkflowId).toBe('wf-parent');
    expect(s.failedReferenceTaskNames).toBe('');
    for (const key of ['correlationId', 'endTime', 'reasonForIncompletion', 'event', 'createdBy', 'externalInputPayloadStoragePath']) {
      expect(Object.keys(s)).not.toContain(key);
    }
    expect(s.input).toBe('{}');
  });
});

describe('summarizeTask', () => {
  it('summarises a finished task, all times formatted', () => {
    const t = makeTask({
      taskId: 'task-1',
      taskType: 'HTTP',
      taskDefName: 'http_call',
      status: 'COMPLETED',
      workflowInstanceId: 'wf-1',
      workflowType: 'order_flow',
      correlationId: 'c-1',
      scheduledTime: T0,
      startTime: T0 + 100,
      endTime: T0 + 350,
      updateTime: T0 + 350,
      inputData: { url: 'u' },
      outputData: { status: 200 },
      domain: 'eu',
      reasonForIncompletion: 'none',
      workflowPriority: 3,
    });
    const s = summarizeTask(t);
    expect(s).toEqual({
      workflowId: 'wf-1',
      workflowType: 'order_flow',
      correlationId: 'c-1',
      scheduledTime: '2024-01-01T00:00:00.000Z',
      startTime: '2024-01-01T00:00:00.100Z',
      updateTime: '2024-01-01T00:00:00.350Z',
      endTime: '2024-01-01T00:00:00.350Z',
      status: 'COMPLETED',
      reasonForIncompletion: 'none',
      executionTime: 250,
      queueWaitTime: 100,
      taskDefName: 'http_call',
      taskType: 'HTTP',
      input: '{"url":"u"}',
      output: '{"status":200}',
      taskId: 'task-1',
      workflowPriority: 3,
      domain: 'eu',
    });
    expect(TaskSummarySchema.parse(s)).toEqual(s);
  });

  it('formats unset times as the epoch and reports zero durations for a task not yet started', () => {
    const s = summarizeTask(makeTask({ scheduledTime: T0, startTime: 0, endTime: 0, updateTime: T0 }));
    expect(s.startTime).toBe('1970-01-01T00:00:00.000Z');
    expect(s.endTime).toBe('1970-01-01T00:00:00.000Z');
    expect(s.executionTime).toBe(0);
    expect(s.queueWaitTime).toBe(0);
    for (const key of ['correlationId', 'reasonForIncompletion', 'domain']) expect(Object.keys(s)).not.toContain(key);
  });
});
