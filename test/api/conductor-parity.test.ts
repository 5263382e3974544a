import { apiClient, taskOf } from '../support/api-client';
import { useBaton } from '../support/baton';

// Behaviours the differential runs against Conductor found missing (issue 12), over real HTTP.

const baton = useBaton();
const api = apiClient(baton.url);

test("a workflow task's embedded taskDefinition is registered without a registered definition's rules and runs with it", async () => {
  const name = api.uniq('embedded');
  const type = api.uniq('embedded_t');
  const taskDefinition = { name: type, timeoutSeconds: 10, responseTimeoutSeconds: 3600, retryCount: 0 };
  // The same definition registered on its own is refused.
  expect((await api.call('POST', '/api/metadata/taskdefs', [taskDefinition])).status).toBe(400);
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'a', taskDefinition }] });
  const id = await api.start(name);
  const task = await api.pollOne(type);
  expect(task.responseTimeoutSeconds).toBe(3600);
  await api.complete(task, { done: true });
  await api.waitForStatus(id, 'COMPLETED');
});

test("an embedded taskDefinition without a name is accepted and takes its task's name", async () => {
  const name = api.uniq('embedded_noname');
  const type = api.uniq('embedded_noname_t');
  const reg = await api.call('POST', '/api/metadata/workflowdef', {
    name,
    version: 1,
    schemaVersion: 2,
    tasks: [{ name: type, taskReferenceName: 'a', taskDefinition: { retryCount: 0, responseTimeoutSeconds: 30 } }],
  });
  expect(reg.status).toBe(200);
  const id = await api.start(name);
  const task = await api.pollOne(type);
  expect(task.taskDefName).toBe(type);
  expect(task.responseTimeoutSeconds).toBe(30);
  await api.complete(task, {}, { status: 'FAILED' });
  // retryCount 0 from the embedded definition: no retry, the workflow fails.
  await api.waitForStatus(id, 'FAILED');
});

test('INLINE scripts call Java List and Map methods on $, and ${CPEWF_TASK_ID} names a retried attempt', async () => {
  const name = api.uniq('inline_java');
  const type = api.uniq('inline_java_t');
  await api.register({
    name,
    tasks: [
      {
        name: 'js',
        taskReferenceName: 'js',
        type: 'INLINE',
        inputParameters: {
          evaluatorType: 'graaljs',
          expression: '({ first: $.items.get(0), n: $.items.size(), has: $.items.contains("b"), k: $.m.containsKey("x"), plain: $.items.length })',
          items: ['a', 'b'],
          m: { x: 1 },
        },
      },
      { name: type, taskReferenceName: 'w', inputParameters: { me: '${CPEWF_TASK_ID}' } },
    ],
  });
  const id = await api.start(name);
  const first = await api.pollOne(type);
  expect(first.inputData.me).toBe(first.taskId);
  await api.complete(first, {}, { status: 'FAILED_WITH_TERMINAL_ERROR' });
  const failed = await api.waitForStatus(id, 'FAILED');
  expect(taskOf(failed, 'js').outputData.result).toEqual({ first: 'a', n: 2, has: true, k: true, plain: 2 });
  expect((await api.call('POST', `/api/workflow/${id}/retry`)).status).toBe(204);
  const second = await api.pollOne(type);
  expect(second.taskId).not.toBe(first.taskId);
  expect(second.inputData.me).toBe(second.taskId);
});

test("a failed JSON_JQ_TRANSFORM's reason is jq's message alone; a JOIN's input is {joinOn}", async () => {
  const name = api.uniq('jq_join');
  await api.register({
    name,
    tasks: [
      {
        name: 'f',
        taskReferenceName: 'f',
        type: 'FORK_JOIN',
        forkTasks: [[{ name: 'n1', taskReferenceName: 'n1', type: 'NOOP' }], [{ name: 'n2', taskReferenceName: 'n2', type: 'NOOP' }]],
      },
      { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['n1', 'n2'] },
      { name: 'jq', taskReferenceName: 'jq', type: 'JSON_JQ_TRANSFORM', inputParameters: { queryExpression: '.a | error("nope")', a: 1 } },
    ],
  });
  const wf = await api.waitForStatus(await api.start(name), 'FAILED');
  expect(taskOf(wf, 'j').inputData).toEqual({ joinOn: ['n1', 'n2'] });
  expect(taskOf(wf, 'jq')).toMatchObject({ reasonForIncompletion: 'nope', outputData: { error: 'nope' } });
});
