import { SchedulerClient } from '@io-orkes/conductor-javascript';
import { eventually } from '../support/baton';
import { rejectionOf, startSdkHarness, uniqueName, type SdkHarness } from '../support/sdk';

// The official JS SDK's SchedulerClient (4.0.0) against an embedded Baton, every method it offers
// for workflow schedules, as an Orkes user calls them.

let h: SdkHarness;
let scheduler: SchedulerClient;
beforeAll(async () => {
  h = await startSdkHarness();
  scheduler = new SchedulerClient(h.client);
});
afterAll(async () => {
  await h?.stop();
});

async function registerWorkflow(): Promise<string> {
  const name = uniqueName('sdk_sched_wf');
  await h.metadata.registerWorkflowDef({ name, version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }], timeoutSeconds: 0 } as never);
  return name;
}

describe('SchedulerClient', () => {
  it('saves, reads, lists, pauses, resumes, tags and deletes a schedule', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('sdk_sched');
    await scheduler.saveSchedule({
      name,
      cronExpression: '0 0 9 ? * MON-FRI',
      zoneId: 'America/New_York',
      startWorkflowRequest: { name: wf, version: 1, input: { a: 1 } },
      description: 'mornings',
    });
    const s = await scheduler.getSchedule(name);
    expect(s).toMatchObject({
      name,
      cronExpression: '0 0 9 ? * MON-FRI',
      zoneId: 'America/New_York',
      paused: false,
      runCatchupScheduleInstances: false,
      description: 'mornings',
    });
    expect((await scheduler.getAllSchedules(wf)).map((x) => x.name)).toEqual([name]);

    // The SDK tries PUT first and falls back to GET on 405: Baton answers both.
    await scheduler.pauseSchedule(name, 'release freeze');
    expect(await scheduler.getSchedule(name)).toMatchObject({ paused: true, pausedReason: 'release freeze' });
    await scheduler.resumeSchedule(name);
    expect((await scheduler.getSchedule(name)).paused).toBe(false);

    await scheduler.setSchedulerTags([{ key: 'owner', value: 'ops' }], name);
    expect(await scheduler.getSchedulerTags(name)).toEqual([{ key: 'owner', value: 'ops' }]);
    await scheduler.deleteSchedulerTags([{ key: 'owner', value: 'ops' }], name);
    expect(await scheduler.getSchedulerTags(name)).toEqual([]);

    await scheduler.deleteSchedule(name);
    expect((await rejectionOf(scheduler.getSchedule(name)))?.message).toMatch(/not found/);
  });

  it('previews the next run times', async () => {
    const start = Date.UTC(2031, 5, 1);
    expect(await scheduler.getNextFewSchedules('0 0 12 * * ?', start, undefined, 2)).toEqual([Date.UTC(2031, 5, 1, 12), Date.UTC(2031, 5, 2, 12)]);
    expect(await scheduler.previewNext('0 0 12 * * ?', { n: 1, startAt: start })).toEqual([Date.UTC(2031, 5, 1, 12)]);
  });

  it('refuses a bad cron expression', async () => {
    const err = await rejectionOf(scheduler.saveSchedule({ name: uniqueName('bad'), cronExpression: '0 0 99 * * *', startWorkflowRequest: { name: 'x' } }));
    expect(err?.message).toMatch(/Invalid cron expression/);
  });

  it('a schedule fires; its executions are found by search, newest first', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('sdk_fire');
    await scheduler.saveSchedule({ name, cronExpression: '*/2 * * * * ?', startWorkflowRequest: { name: wf, input: { from: 'sdk' } } });
    const found = await eventually(
      async () => {
        const r = await scheduler.search(0, 10, 'scheduledTime:DESC', '*', `scheduleName=${name}`);
        return (r.results?.length ?? 0) >= 2 && r;
      },
      30_000,
      250,
    );
    const [newest, older] = found.results!;
    expect(newest!.scheduledTime!).toBeGreaterThan(older!.scheduledTime!);
    expect(newest).toMatchObject({ scheduleName: name, workflowName: wf, state: 'EXECUTED' });
    const w = await h.executor.getWorkflow(newest!.workflowId!, false);
    expect(w.input).toMatchObject({ from: 'sdk', _scheduledTime: newest!.scheduledTime });
    await scheduler.pauseAllSchedules();
    await scheduler.resumeAllSchedules();
    await scheduler.requeueAllExecutionRecords();
    await scheduler.deleteSchedule(name);
  });
});
