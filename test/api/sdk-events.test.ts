import { EventClient } from '@io-orkes/conductor-javascript';
import { apiClient } from '../support/api-client';
import { startSdkHarness, uniqueName, waitForWorkflow, type SdkHarness } from '../support/sdk';

// The official JS SDK's EventClient (4.0.0): reading a handler by its name and handing Baton an
// incoming event, as its integration suite does.

let h: SdkHarness;
let events: EventClient;
beforeAll(async () => {
  h = await startSdkHarness();
  events = new EventClient(h.client);
});
afterAll(async () => {
  await h?.stop();
});

/** A handler of a fresh event whose one action starts a fresh workflow with `${source}` of the payload. */
async function handlerStartingAWorkflow(): Promise<{ handler: string; event: string; workflow: string }> {
  const workflow = uniqueName('sdk_evt_wf');
  await h.metadata.registerWorkflowDef({
    name: workflow,
    version: 1,
    tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
    timeoutSeconds: 0,
  } as never);
  const handler = uniqueName('sdk_evt_handler');
  const event = `jsSdkTest:${uniqueName('event')}`;
  await events.addEventHandler({
    name: handler,
    event,
    active: true,
    actions: [{ action: 'start_workflow', start_workflow: { name: workflow, version: 1, input: { from: '${source}' } } }],
  });
  return { handler, event, workflow };
}

describe('EventClient', () => {
  it('reads a handler by its name, and rejects an unknown name with a 404', async () => {
    const { handler, event } = await handlerStartingAWorkflow();
    const got = await events.getEventHandlerByName(handler);
    expect(got).toMatchObject({ name: handler, event, active: true });
    expect(got.actions?.[0]?.action).toBe('start_workflow');
    const missing = uniqueName('missing');
    await expect(events.getEventHandlerByName(missing)).rejects.toBeDefined();
    const r = await apiClient(h.baton.url).call('GET', `/api/event/handler/${missing}`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 404, message: `EventHandler with name ${missing} not found!` });
  });

  it("handleIncomingEvent runs the event's handlers before it answers: the execution is there and the workflow starts", async () => {
    const { handler, event, workflow } = await handlerStartingAWorkflow();
    await events.handleIncomingEvent({ event, source: 'integration-test', message: 'test event' });
    const executions = await events.getEventExecutions(handler, 0);
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ name: handler, event, action: 'start_workflow', status: 'COMPLETED' });
    const workflowId = String((executions[0]!.output as Record<string, unknown>).workflowId);
    const wf = await waitForWorkflow(h.executor, workflowId, 'COMPLETED');
    expect(wf).toMatchObject({ workflowName: workflow, input: { from: 'integration-test' } });
    const messages = await events.getEventMessages(event);
    expect(messages.map((m) => m.eventTarget)).toEqual([event]);
  });

  it("an event's message carries what was received: fullPayload the object, payload its JSON text", async () => {
    const { event } = await handlerStartingAWorkflow();
    const sent = { event, source: 'integration-test', timestamp: '1700000000000', message: 'test event' };
    await events.handleIncomingEvent(sent);
    const [message, ...rest] = await events.getEventMessages(event);
    expect(rest).toEqual([]);
    expect(message!.fullPayload).toEqual(sent);
    expect(JSON.parse(message!.payload!)).toEqual(sent);
  });

  it('refuses an incoming event that names no event with a 400, and the server keeps serving', async () => {
    await expect(events.handleIncomingEvent({})).rejects.toBeDefined();
    const api = apiClient(h.baton.url);
    for (const body of [{}, [], 'text', { event: '' }, { event: 7 }]) {
      const r = await api.call('POST', '/api/event/handleIncomingEvent', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: 400 });
    }
    expect((await api.call('GET', '/health')).status).toBe(200);
  });

  it("refuses a handler without actions with Conductor OSS's message (Orkes stores it); given an action it is stored", async () => {
    const name = uniqueName('sdk_evt_empty');
    const event = `jsSdkTest:${uniqueName('event')}`;
    const refused = await events.addEventHandler({ name, event, active: true, actions: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((refused as Error | undefined)?.message)).toMatch(/Validation failed/); // the message names the rule in its validationErrors
    await expect(events.getEventHandlerByName(name)).rejects.toBeDefined();
    await events.addEventHandler({ name, event, active: true, actions: [{ action: 'terminate_workflow', terminate_workflow: { workflowId: '${id}' } }] });
    expect((await events.getEventHandlerByName(name)).actions?.map((a) => a.action)).toEqual(['terminate_workflow']);
  });
});
