import { Consistency, ReturnStrategy, workflow } from '@io-orkes/conductor-javascript';
import { call } from '../support/baton';
import { startSdkHarness, uniqueName, waitForWorkflow, type SdkHarness } from '../support/sdk';

// YIELD as the official JS SDK's signal suite uses it (4.0.0): an operator with no task definition that
// holds its execution IN_PROGRESS until a signal; executeWorkflow and signal answer where it waits.

let h: SdkHarness;
beforeAll(async () => {
  h = await startSdkHarness();
});
afterAll(async () => {
  await h?.stop();
});

const yieldTask = (ref: string) => ({ name: 'yield', taskReferenceName: ref, type: 'YIELD' as never, inputParameters: { at: ref } });
const subWorkflow = (ref: string, name: string) => ({
  name: 'sub_workflow',
  taskReferenceName: ref,
  type: 'SUB_WORKFLOW' as never,
  inputParameters: {},
  subWorkflowParam: { name, version: 1 },
});

/** parent → child1 [YIELD y1, child2 [YIELD y2]], the shape of the SDK's complex signal test; no task definition named `yield` exists. */
async function registerNestedYields(): Promise<string> {
  const child2 = uniqueName('sdk_yield_child2');
  const child1 = uniqueName('sdk_yield_child1');
  const parent = uniqueName('sdk_yield_parent');
  await h.executor.registerWorkflow(true, workflow(child2, [yieldTask('y2')]));
  await h.executor.registerWorkflow(true, workflow(child1, [yieldTask('y1'), subWorkflow('call_child2', child2)]));
  await h.executor.registerWorkflow(true, workflow(parent, [subWorkflow('call_child1', child1)]));
  return parent;
}

describe('YIELD through the JS SDK', () => {
  it('execute answers at the first YIELD; each signal moves on to the next; the last one completes the execution', async () => {
    const parent = await registerNestedYields();
    const started = await h.executor.executeWorkflow(
      { name: parent, version: 1, input: {} },
      parent,
      1,
      uniqueName('req'),
      '',
      10,
      Consistency.SYNCHRONOUS,
      ReturnStrategy.BLOCKING_TASK,
    );
    expect(started.isBlockingTask()).toBe(true);
    expect(started.getBlockingTask()).toMatchObject({ taskType: 'YIELD', referenceTaskName: 'y1', status: 'IN_PROGRESS', inputData: { at: 'y1' } });
    const target = started.targetWorkflowId!;

    // Not a worker's task: nobody can poll it away from the signal.
    const polled = await call(h.baton.url, 'GET', '/api/tasks/poll/batch/YIELD?count=5&timeout=1');
    expect(polled.body).toEqual([]);

    const second = await h.executor.signal(target, 'COMPLETED' as never, { approved: true }, ReturnStrategy.BLOCKING_TASK);
    expect(second.getBlockingTask()).toMatchObject({ taskType: 'YIELD', referenceTaskName: 'y2', status: 'IN_PROGRESS' });

    const done = await h.executor.signal(target, 'COMPLETED' as never, { last: 1 }, ReturnStrategy.TARGET_WORKFLOW);
    expect(done.isTargetWorkflow()).toBe(true);
    expect(done.getWorkflow()).toMatchObject({ workflowId: target, status: 'COMPLETED' });
    const wf = await waitForWorkflow(h.executor, target, 'COMPLETED');
    expect(wf.status).toBe('COMPLETED');
  });

  it('a YIELD signalled FAILED fails its execution', async () => {
    const name = uniqueName('sdk_yield_single');
    await h.executor.registerWorkflow(true, workflow(name, [yieldTask('only')]));
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const r = await h.executor.signal(id, 'FAILED' as never, { why: 'no' }, ReturnStrategy.TARGET_WORKFLOW);
    expect(r.getWorkflow()).toMatchObject({ status: 'FAILED' });
  });
});
