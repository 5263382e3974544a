import { apiClient } from '../support/api-client';
import { eventually, useBaton } from '../support/baton';

// Event handlers over real HTTP: definitions, and what they do when
// EVENT tasks and workflow status listeners publish.

const baton = useBaton();
const api = apiClient(baton.url);

const executionsOf = async (handler: string) => (await api.call('GET', `/api/event/execution/${handler}`)).body as any[];
const waitExecutions = (handler: string, count: number) =>
  eventually(async () => {
    const list = await executionsOf(handler);
    return list.length >= count ? list : undefined;
  });

/** A workflow whose only task is an EVENT task publishing to `conductor:<name>:<ref>`. */
async function registerPublisher(inputParameters: Record<string, unknown>): Promise<{ name: string; event: string }> {
  const name = api.uniq('publisher');
  await api.register({ name, tasks: [{ name: 'emit', taskReferenceName: 'emit', type: 'EVENT', sink: 'conductor', inputParameters }] });
  return { name, event: `conductor:${name}:emit` };
}

/** A workflow that waits in one task of `type` (HUMAN or WAIT). */
async function registerWaiter(type: string, extra: Record<string, unknown> = {}): Promise<string> {
  const name = api.uniq('waiter');
  await api.register({
    name,
    tasks: [{ name: 'gate', taskReferenceName: 'gate', type }],
    outputParameters: { approvedBy: '${gate.output.approvedBy}' },
    ...extra,
  });
  return name;
}

describe('event handler definitions', () => {
  const handler = (name: string, event: string, extra: Record<string, unknown> = {}) => ({
    name,
    event,
    active: true,
    actions: [{ action: 'start_workflow', start_workflow: { name: 'anything', input: {} } }],
    ...extra,
  });

  test('add, read by event, update, remove; conflicts and unknown names', async () => {
    const name = api.uniq('h');
    const event = `conductor:${api.uniq('wf')}:ref`;
    expect((await api.call('POST', '/api/event', handler(name, event))).status).toBe(200);
    const again = await api.call('POST', '/api/event', handler(name, event));
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(name);

    const all = await api.call('GET', '/api/event');
    expect(all.status).toBe(200);
    expect(all.contentType).toContain('application/json');
    expect(all.body.find((h: any) => h.name === name)).toMatchObject({
      name,
      event,
      active: true,
      actions: [{ action: 'start_workflow', expandInlineJSON: false }],
    });

    const byEvent = await api.call('GET', `/api/event/${encodeURIComponent(event)}`);
    expect(byEvent.body.map((h: any) => h.name)).toEqual([name]);

    // activeOnly defaults to true: a deactivated handler is listed only with activeOnly=false.
    expect((await api.call('PUT', '/api/event', handler(name, event, { active: false }))).status).toBe(200);
    expect((await api.call('GET', `/api/event/${encodeURIComponent(event)}`)).body).toEqual([]);
    expect((await api.call('GET', `/api/event/${encodeURIComponent(event)}?activeOnly=false`)).body.map((h: any) => h.active)).toEqual([false]);

    const unknown = api.uniq('nobody');
    expect((await api.call('PUT', '/api/event', handler(unknown, event))).status).toBe(404);
    expect((await api.call('DELETE', `/api/event/${unknown}`)).status).toBe(404);

    expect((await api.call('DELETE', `/api/event/${name}`)).status).toBe(200);
    expect((await api.call('GET', '/api/event')).body.some((h: any) => h.name === name)).toBe(false);
    expect((await api.call('DELETE', `/api/event/${name}`)).status).toBe(404);
  });

  test('active defaults to false, as in Conductor', async () => {
    const name = api.uniq('h');
    const { active: _a, ...inactive } = handler(name, 'conductor:x:y');
    expect((await api.call('POST', '/api/event', inactive)).status).toBe(200);
    expect((await api.call('GET', '/api/event')).body.find((h: any) => h.name === name).active).toBe(false);
  });

  test('invalid handlers are refused with 400 and change nothing', async () => {
    const name = api.uniq('bad');
    const cases = [
      { event: 'conductor:a:b', actions: [{ action: 'start_workflow', start_workflow: { name: 'x' } }] },
      { name, actions: [{ action: 'start_workflow', start_workflow: { name: 'x' } }] },
      { name, event: 'conductor:a:b', actions: [] },
      { name, event: 'conductor:a:b', actions: [{ action: 'launch_rocket' }] },
      { name, event: 'conductor:a:b', actions: [{ action: 'start_workflow' }] },
      { name, event: 'conductor:a:b', actions: [{ action: 'complete_task', complete_task: { workflowId: '${workflowInstanceId}' } }] },
      { name, event: 'conductor:a:b', actions: [{ action: 'terminate_workflow', terminate_workflow: {} }] },
    ];
    for (const body of cases) {
      const r = await api.call('POST', '/api/event', body);
      expect(r.status).toBe(400);
      expect(r.body.validationErrors?.length ?? 0).toBeGreaterThan(0);
    }
    expect((await api.call('GET', '/api/event')).body.some((h: any) => h.name === name)).toBe(false);
  });
});

describe('event handler actions', () => {
  test('an EVENT task (sink conductor) completes a HUMAN task in another workflow; the payload fills ${...}', async () => {
    const waiterName = await registerWaiter('HUMAN');
    const waiting = await api.start(waiterName);
    await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ target: '${workflow.input.target}', who: '${workflow.input.who}' });
    const handlerName = api.uniq('approve');
    const handler = {
      name: handlerName,
      event: publisher.event,
      active: true,
      condition: '$.who !== undefined && $.who.length > 0',
      actions: [
        {
          action: 'complete_task',
          complete_task: { workflowId: '${target}', taskRefName: 'gate', output: { approvedBy: '${who}', source: '${workflowType}' } },
        },
      ],
    };
    expect((await api.call('POST', '/api/event', handler)).status).toBe(200);

    const pub = await api.start(publisher.name, { target: waiting, who: 'ana' });
    expect((await api.waitForStatus(pub, 'COMPLETED')).tasks[0].outputData.event_produced).toBe(publisher.event);
    const done = await api.waitForStatus(waiting, 'COMPLETED');
    expect(done.output).toEqual({ approvedBy: 'ana' });
    expect(done.tasks[0].outputData).toMatchObject({
      approvedBy: 'ana',
      source: publisher.name,
      workflowId: waiting,
      taskRefName: 'gate',
      'conductor.event.name': publisher.event,
      'conductor.event.messageId': expect.any(String),
    });

    const [exec] = await waitExecutions(handlerName, 1);
    expect(exec).toMatchObject({
      name: handlerName,
      event: publisher.event,
      status: 'COMPLETED',
      action: 'complete_task',
      output: { workflowId: waiting, taskRefName: 'gate' },
    });
    expect(exec.messageId).toBe(done.tasks[0].outputData['conductor.event.messageId']);
    // Statistics per active handler (Orkes' shape, as the SDK's EventClient reads it); the messages of the event with their executions.
    const stats = (await api.call('GET', '/api/event/execution')).body;
    expect(stats.totalHits).toBe(stats.results.length);
    expect(stats.results).toContainEqual({ name: handlerName, event: publisher.event, active: true, numberOfActions: 1, numberOfMessages: 1 });
    const messages = (await api.call('GET', `/api/event/message/${encodeURIComponent(publisher.event)}`)).body;
    expect(messages).toEqual([expect.objectContaining({ id: exec.messageId, eventTarget: publisher.event, status: 'HANDLED', eventExecutions: [exec] })]);
    expect((await api.call('GET', '/api/event/message')).body.results).toContainEqual(expect.objectContaining({ name: handlerName, numberOfMessages: 1 }));
    expect(await executionsOf(`${handlerName}?from=1`)).toEqual([]);
    expect((await api.call('GET', `/api/event/execution/${handlerName}?from=-1`)).status).toBe(400);
  });

  test('fail_task fails a WAIT task found by task id, with the reason', async () => {
    const waiterName = await registerWaiter('WAIT');
    const waiting = await api.start(waiterName);
    const gate = await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ taskId: '${workflow.input.taskId}' });
    const handlerName = api.uniq('reject');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: publisher.event,
      active: true,
      actions: [{ action: 'fail_task', fail_task: { taskId: '${taskId}', reasonForIncompletion: 'rejected by ${workflowType}', output: { verdict: 'no' } } }],
    });
    await api.start(publisher.name, { taskId: gate.taskId });
    const failed = await api.waitForStatus(waiting, 'FAILED');
    expect(failed.tasks[0]).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: `rejected by ${publisher.name}`,
      outputData: { verdict: 'no', taskId: gate.taskId },
    });
    expect((await waitExecutions(handlerName, 1))[0]).toMatchObject({ status: 'COMPLETED', action: 'fail_task' });
  });

  test('start_workflow starts a workflow with the resolved input and the event name', async () => {
    const child = api.uniq('started');
    await api.register({
      name: child,
      tasks: [{ name: 'noop', taskReferenceName: 'noop', type: 'NOOP' }],
      outputParameters: { greeting: '${workflow.input.greeting}' },
    });
    const publisher = await registerPublisher({ word: 'hello', list: '${workflow.input.list}' });
    const handlerName = api.uniq('starter');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: publisher.event,
      active: true,
      actions: [
        {
          action: 'start_workflow',
          start_workflow: { name: child, version: 1, correlationId: 'corr-${word}', input: { greeting: '${word} world', second: '${list[1]}' } },
        },
      ],
    });
    await api.start(publisher.name, { list: ['a', 'b'] });
    const [exec] = await waitExecutions(handlerName, 1);
    expect(exec).toMatchObject({ status: 'COMPLETED', action: 'start_workflow' });
    const started = await api.waitForStatus(exec.output.workflowId, 'COMPLETED');
    expect(started).toMatchObject({ workflowName: child, correlationId: 'corr-hello', event: publisher.event, output: { greeting: 'hello world' } });
    expect(started.input).toMatchObject({
      greeting: 'hello world',
      second: 'b',
      'conductor.event.name': publisher.event,
      'conductor.event.messageId': exec.messageId,
    });
  });

  test('a false condition records a SKIPPED execution and does nothing', async () => {
    const waiterName = await registerWaiter('HUMAN');
    const waiting = await api.start(waiterName);
    await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ target: '${workflow.input.target}', amount: '${workflow.input.amount}' });
    const handlerName = api.uniq('big_only');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: publisher.event,
      active: true,
      condition: '$.amount > 100',
      actions: [{ action: 'complete_task', complete_task: { workflowId: '${target}', taskRefName: 'gate' } }],
    });
    await api.start(publisher.name, { target: waiting, amount: 5 });
    const [exec] = await waitExecutions(handlerName, 1);
    expect(exec).toMatchObject({ status: 'SKIPPED', output: { condition: '$.amount > 100', msg: { amount: 5 } } });
    expect((await api.workflow(waiting)).tasks[0].status).toBe('IN_PROGRESS');

    // The same handler acts once the condition holds.
    await api.start(publisher.name, { target: waiting, amount: 500 });
    await api.waitForStatus(waiting, 'COMPLETED');
    expect((await waitExecutions(handlerName, 2)).map((e) => e.status).sort()).toEqual(['COMPLETED', 'SKIPPED']);
  });

  test('an inactive handler does nothing and records nothing', async () => {
    const waiterName = await registerWaiter('HUMAN');
    const waiting = await api.start(waiterName);
    await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ target: '${workflow.input.target}' });
    const off = api.uniq('off');
    const on = api.uniq('on_marker');
    await api.call('POST', '/api/event', {
      name: off,
      event: publisher.event,
      active: false,
      actions: [{ action: 'complete_task', complete_task: { workflowId: '${target}', taskRefName: 'gate' } }],
    });
    // A second, active handler on the same event shows when the event has been processed.
    await api.call('POST', '/api/event', {
      name: on,
      event: publisher.event,
      active: true,
      condition: 'false',
      actions: [{ action: 'terminate_workflow', terminate_workflow: { workflowId: '${target}' } }],
    });
    await api.start(publisher.name, { target: waiting });
    await waitExecutions(on, 1);
    expect(await executionsOf(off)).toEqual([]);
    expect((await api.workflow(waiting)).status).toBe('RUNNING');
  });

  test('terminate_workflow ends the named workflow with the reason', async () => {
    const waiterName = await registerWaiter('HUMAN');
    const waiting = await api.start(waiterName);
    await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ target: '${workflow.input.target}' });
    const handlerName = api.uniq('stopper');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: publisher.event,
      active: true,
      actions: [{ action: 'terminate_workflow', terminate_workflow: { workflowId: '${target}', terminationReason: 'stopped by ${workflowType}' } }],
    });
    await api.start(publisher.name, { target: waiting });
    const ended = await api.waitForStatus(waiting, 'TERMINATED');
    expect(ended.reasonForIncompletion).toBe(`stopped by ${publisher.name}`);
    expect((await waitExecutions(handlerName, 1))[0]).toMatchObject({ status: 'COMPLETED', action: 'terminate_workflow', output: { workflowId: waiting } });
  });

  test('update_workflow_variables sets and appends variables of a running workflow; expandInlineJSON parses JSON text', async () => {
    const waiterName = await registerWaiter('HUMAN', { outputParameters: { notes: '${workflow.variables.notes}', stage: '${workflow.variables.stage}' } });
    const waiting = await api.start(waiterName);
    await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ target: '${workflow.input.target}', body: '${workflow.input.body}' });
    const handlerName = api.uniq('vars');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: publisher.event,
      active: true,
      actions: [
        {
          action: 'update_workflow_variables',
          expandInlineJSON: true,
          update_workflow_variables: { workflowId: '${target}', variables: { stage: '${body.stage}' } },
        },
        { action: 'update_workflow_variables', update_workflow_variables: { workflowId: '${target}', variables: { notes: 'first' }, appendArray: true } },
        { action: 'update_workflow_variables', update_workflow_variables: { workflowId: '${target}', variables: { notes: 'second' }, appendArray: true } },
      ],
    });
    await api.start(publisher.name, { target: waiting, body: JSON.stringify({ stage: 'review' }) });
    const execs = await waitExecutions(handlerName, 3);
    expect(execs.map((e) => e.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect((await api.workflow(waiting)).variables).toEqual({ stage: 'review', notes: ['first', 'second'] });
    // The variables are the execution's own: its outputs read them when it completes.
    const done = await api.call('POST', `/api/tasks/${waiting}/gate/COMPLETED`, {});
    expect(done.status).toBe(200);
    expect((await api.waitForStatus(waiting, 'COMPLETED')).output).toEqual({ notes: ['first', 'second'], stage: 'review' });
  });

  test('a failing action is recorded as FAILED and the next action still runs', async () => {
    const waiterName = await registerWaiter('HUMAN');
    const waiting = await api.start(waiterName);
    await api.waitForTask(waiting, 'gate', 'IN_PROGRESS');
    const publisher = await registerPublisher({ target: '${workflow.input.target}' });
    const handlerName = api.uniq('partly');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: publisher.event,
      active: true,
      actions: [
        { action: 'complete_task', complete_task: { workflowId: 'no-such-workflow', taskRefName: 'gate' } },
        { action: 'start_workflow', start_workflow: { name: api.uniq('never_registered') } },
        { action: 'complete_task', complete_task: { workflowId: '${target}', taskRefName: 'gate' } },
      ],
    });
    await api.start(publisher.name, { target: waiting });
    const execs = await waitExecutions(handlerName, 3);
    expect(execs.map((e) => [e.action, e.status])).toEqual(
      expect.arrayContaining([
        ['complete_task', 'FAILED'],
        ['start_workflow', 'FAILED'],
        ['complete_task', 'COMPLETED'],
      ]),
    );
    expect(execs.filter((e) => e.status === 'FAILED').every((e) => typeof e.output.error === 'string' && e.output.error.length > 0)).toBe(true);
    await api.waitForStatus(waiting, 'COMPLETED');
  });

  test('the workflow status listener publishes baton:workflow:<name> when an execution starts and ends', async () => {
    const listened = api.uniq('listened');
    await api.register({ name: listened, workflowStatusListenerEnabled: true, tasks: [{ name: 'noop', taskReferenceName: 'noop', type: 'NOOP' }] });
    const follower = api.uniq('follower');
    await api.register({
      name: follower,
      tasks: [{ name: 'noop', taskReferenceName: 'noop', type: 'NOOP' }],
      outputParameters: { saw: '${workflow.input.saw}', status: '${workflow.input.status}' },
    });
    const handlerName = api.uniq('on_end');
    await api.call('POST', '/api/event', {
      name: handlerName,
      event: `baton:workflow:${listened}`,
      active: true,
      condition: "$.status == 'COMPLETED'",
      actions: [{ action: 'start_workflow', start_workflow: { name: follower, input: { saw: '${workflowId}', status: '${status}' } } }],
    });
    const id = await api.start(listened);
    // The start (RUNNING) fails the condition and is recorded SKIPPED; the end runs the action.
    const execs = await waitExecutions(handlerName, 2);
    expect(execs.map((e: { status: string }) => e.status).sort()).toEqual(['COMPLETED', 'SKIPPED']);
    const exec = execs.find((e: { status: string }) => e.status === 'COMPLETED');
    expect((await api.waitForStatus(exec.output.workflowId, 'COMPLETED')).output).toEqual({ saw: id, status: 'COMPLETED' });
  });
});
