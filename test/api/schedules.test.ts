import { call, eventually, startBaton, type TestBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// The scheduler API over HTTP against an embedded Baton: CRUD, validation, pause/resume, next runs,
// tags, and real firings of per-second crons polled through the executions search.

let baton: TestBaton;
beforeAll(async () => {
  baton = await startBaton();
});
afterAll(async () => {
  await baton?.stop();
});

const api = <T = any>(method: string, path: string, body?: unknown) => call<T>(baton.url, method, path, body);

/** A workflow that stays RUNNING (one HUMAN task), so its input can be read back. */
async function registerWorkflow(): Promise<string> {
  const name = uniqueName('sched_wf');
  const r = await api('POST', '/api/metadata/workflowdef', { name, version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] });
  expect(r.status).toBe(200);
  return name;
}

const saveBody = (name: string, workflowName: string, over: Record<string, unknown> = {}) => ({
  name,
  cronExpression: '0 0 9 ? * MON-FRI',
  startWorkflowRequest: { name: workflowName, version: 1, input: { k: 'v' } },
  ...over,
});

type Execution = {
  executionId: string;
  scheduleName: string;
  scheduledTime: number;
  executionTime: number;
  workflowId?: string;
  state: string;
  reason?: string;
  workflowName: string;
};

async function executionsOf(schedule: string): Promise<Execution[]> {
  const r = await api<{ totalHits: number; results: Execution[] }>(
    'GET',
    `/api/scheduler/search/executions?query=${encodeURIComponent(`scheduleName=${schedule}`)}&size=1000`,
  );
  expect(r.status).toBe(200);
  return r.body.results;
}

describe('schedule definitions', () => {
  it('saves with Orkes defaults, reads back, lists by workflow, updates, deletes', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('s');
    expect((await api('POST', '/api/scheduler/schedules', saveBody(name, wf, { description: 'weekday mornings' }))).status).toBe(200);
    const got = await api('GET', `/api/scheduler/schedules/${name}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      name,
      cronExpression: '0 0 9 ? * MON-FRI',
      zoneId: 'UTC',
      paused: false,
      runCatchupScheduleInstances: false,
      description: 'weekday mornings',
      tags: [],
    });
    expect(got.body.startWorkflowRequest).toMatchObject({ name: wf, version: 1, input: { k: 'v' } });
    expect(got.body.nextRunTime).toBeGreaterThan(Date.now());
    expect(new Date(got.body.nextRunTime).getUTCHours()).toBe(9);
    expect(got.body.createTime).toBeGreaterThan(0);

    const listed = await api('GET', `/api/scheduler/schedules?workflowName=${wf}`);
    expect(listed.body.map((s: { name: string }) => s.name)).toEqual([name]);
    expect((await api('GET', `/api/scheduler/schedules?workflowName=${uniqueName('none')}`)).body).toEqual([]);

    expect((await api('POST', '/api/scheduler/schedules', saveBody(name, wf, { cronExpression: '0 30 8 * * *', zoneId: 'Europe/Berlin' }))).status).toBe(200);
    const updated = await api('GET', `/api/scheduler/schedules/${name}`);
    expect(updated.body).toMatchObject({ cronExpression: '0 30 8 * * *', zoneId: 'Europe/Berlin', createTime: got.body.createTime });

    expect((await api('DELETE', `/api/scheduler/schedules/${name}`)).status).toBe(200);
    const gone = await api('GET', `/api/scheduler/schedules/${name}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ status: 404, message: expect.stringContaining(name) });
    expect((await api('DELETE', `/api/scheduler/schedules/${name}`)).status).toBe(404);
  });

  it.each([
    ['a five-field cron', { cronExpression: '* * * * *' }, /6 fields/],
    ['an hour out of range', { cronExpression: '0 0 25 * * *' }, /Invalid cron expression/],
    ['W with a day of week', { cronExpression: '0 0 0 15W * MON' }, /day-of-week must be/],
    ['an unknown zone', { zoneId: 'Mars/Olympus' }, /Invalid zoneId/],
    ['no cron', { cronExpression: undefined }, /Validation failed/],
    ['no start request', { startWorkflowRequest: undefined }, /Validation failed/],
    ['a name with a slash', { name: 'a/b' }, /Validation failed/],
    ['an end before the start', { scheduleStartTime: 2_000_000_000_000, scheduleEndTime: 1_000_000_000_000 }, /scheduleEndTime/],
  ])('refuses %s with a 400 and stores nothing', async (_what, over, message) => {
    const name = uniqueName('bad');
    const r = await api('POST', '/api/scheduler/schedules', { ...saveBody(name, 'any'), ...over });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400, message: expect.stringMatching(message) });
    expect((await api('GET', `/api/scheduler/schedules/${name}`)).status).toBe(404);
  });

  it('pauses with a reason and resumes, through PUT (Conductor) and GET (Orkes)', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('p');
    await api('POST', '/api/scheduler/schedules', saveBody(name, wf));
    expect((await api('PUT', `/api/scheduler/schedules/${name}/pause?reason=maintenance`)).status).toBe(200);
    const paused = (await api('GET', `/api/scheduler/schedules/${name}`)).body;
    expect(paused).toMatchObject({ paused: true, pausedReason: 'maintenance' });
    expect(paused.nextRunTime).toBeUndefined();
    expect((await api('GET', `/api/scheduler/schedules/${name}/resume`)).status).toBe(200);
    const resumed = (await api('GET', `/api/scheduler/schedules/${name}`)).body;
    expect(resumed.paused).toBe(false);
    expect(resumed.pausedReason).toBeUndefined();
    expect((await api('GET', `/api/scheduler/schedules/${name}/pause`)).status).toBe(200);
    expect((await api('GET', `/api/scheduler/schedules/${name}`)).body.paused).toBe(true);
    expect((await api('PUT', `/api/scheduler/schedules/${uniqueName('nope')}/pause`)).status).toBe(404);
  });

  it('tags: set, read, find schedules by tag, remove', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('t');
    await api('POST', '/api/scheduler/schedules', saveBody(name, wf));
    const team = uniqueName('team');
    expect(
      (
        await api('PUT', `/api/scheduler/schedules/${name}/tags`, [
          { key: 'team', value: team },
          { key: 'env', value: 'prod' },
        ])
      ).status,
    ).toBe(200);
    expect((await api('GET', `/api/scheduler/schedules/${name}/tags`)).body).toEqual([
      { key: 'team', value: team },
      { key: 'env', value: 'prod' },
    ]);
    const byTag = await api('GET', `/api/scheduler/schedules/tags?tag=team:${team}`);
    expect(byTag.body.map((s: { name: string }) => s.name)).toEqual([name]);
    expect((await api('DELETE', `/api/scheduler/schedules/${name}/tags`, [{ key: 'env', value: 'prod' }])).status).toBe(200);
    expect((await api('GET', `/api/scheduler/schedules/${name}/tags`)).body).toEqual([{ key: 'team', value: team }]);
    expect((await api('PUT', `/api/scheduler/schedules/${name}/tags`, { key: 'x' })).status).toBe(400);
    expect((await api('GET', '/api/scheduler/schedules/tags')).status).toBe(400);
    expect((await api('GET', `/api/scheduler/schedules/${uniqueName('none')}/tags`)).status).toBe(404);
  });
});

describe('next run times', () => {
  const noonsFrom = (day: number, n: number): number[] => Array.from({ length: n }, (_, i) => Date.UTC(2030, 0, day + i, 12));

  it('lists the next slots (default 5, as Conductor) inside the window', async () => {
    const start = Date.UTC(2030, 0, 1);
    const r = await api('GET', `/api/scheduler/nextFewSchedules?cronExpression=${encodeURIComponent('0 0 12 * * ?')}&scheduleStartTime=${start}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(noonsFrom(1, 5));
    const bounded = await api(
      'GET',
      `/api/scheduler/nextFewSchedules?cronExpression=${encodeURIComponent('0 0 12 * * ?')}&scheduleStartTime=${start}&scheduleEndTime=${Date.UTC(2030, 0, 2, 13)}&limit=5`,
    );
    expect(bounded.body).toEqual([Date.UTC(2030, 0, 1, 12), Date.UTC(2030, 0, 2, 12)]);
  });

  it.each([
    ['no cron', ''],
    ['a bad cron', `?cronExpression=${encodeURIComponent('0 0 99 * * *')}`],
    ['a limit below 1', `?cronExpression=${encodeURIComponent('0 * * * * *')}&limit=0`],
    ['a limit that is no number', `?cronExpression=${encodeURIComponent('0 * * * * *')}&limit=x`],
  ])('refuses %s with a 400', async (_what, query) => {
    const r = await api('GET', `/api/scheduler/nextFewSchedules${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400 });
  });

  it('answers at most 5 slots for a larger limit, as Conductor does, instead of refusing it', async () => {
    const r = await api(
      'GET',
      `/api/scheduler/nextFewSchedules?cronExpression=${encodeURIComponent('0 0 12 * * ?')}&scheduleStartTime=${Date.UTC(2030, 0, 1)}&limit=10`,
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual(noonsFrom(1, 5));
  });
});

describe('firing', () => {
  it('a per-second cron starts the workflow once per slot, with the slot and dispatch time in its input', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('every2s');
    await api('POST', '/api/scheduler/schedules', saveBody(name, wf, { cronExpression: '*/2 * * * * ?' }));
    const runs = await eventually(
      async () => {
        const e = await executionsOf(name);
        return e.length >= 3 && e;
      },
      30_000,
      250,
    );
    expect(runs.every((e) => e.state === 'EXECUTED' && e.workflowName === wf)).toBe(true);
    // Newest first, one record per slot, every slot on the cron, one workflow each.
    const slots = runs.map((e) => e.scheduledTime);
    expect([...slots].sort((a, b) => b - a)).toEqual(slots);
    expect(new Set(slots).size).toBe(slots.length);
    expect(slots.every((s) => s % 2000 === 0)).toBe(true);
    expect(new Set(runs.map((e) => e.workflowId)).size).toBe(runs.length);
    const first = runs[runs.length - 1]!;
    const w = (await api('GET', `/api/workflow/${first.workflowId}?includeTasks=false`)).body;
    expect(w).toMatchObject({
      workflowName: wf,
      correlationId: name,
      input: { k: 'v', _scheduledTime: first.scheduledTime, _executedTime: first.executionTime },
    });
    // The executions search filters by state and pages.
    const page = await api('GET', `/api/scheduler/search/executions?query=${encodeURIComponent(`scheduleName=${name} AND state=EXECUTED`)}&start=1&size=1`);
    expect(page.body.results).toHaveLength(1);
    expect(page.body.totalHits).toBeGreaterThanOrEqual(3);
    await api('DELETE', `/api/scheduler/schedules/${name}`);
  });

  it('a start that fails is recorded FAILED with its reason', async () => {
    const name = uniqueName('missing');
    const missingWorkflow = uniqueName('no_such_wf');
    await api('POST', '/api/scheduler/schedules', saveBody(name, missingWorkflow, { cronExpression: '* * * * * *' }));
    const failed = await eventually(async () => (await executionsOf(name))[0], 20_000, 250);
    expect(failed).toMatchObject({ state: 'FAILED', workflowName: missingWorkflow, reason: expect.stringContaining(missingWorkflow) });
    expect(failed.workflowId).toBeUndefined();
    await api('DELETE', `/api/scheduler/schedules/${name}`);
  });

  it('a paused schedule, one not yet started and one already ended do not fire while another fires', async () => {
    const wf = await registerWorkflow();
    const control = uniqueName('control');
    const paused = uniqueName('paused');
    const later = uniqueName('later');
    const ended = uniqueName('ended');
    await api('POST', '/api/scheduler/schedules', saveBody(paused, wf, { cronExpression: '* * * * * *', paused: true }));
    await api('POST', '/api/scheduler/schedules', saveBody(later, wf, { cronExpression: '* * * * * *', scheduleStartTime: Date.now() + 3600_000 }));
    await api(
      'POST',
      '/api/scheduler/schedules',
      saveBody(ended, wf, { cronExpression: '* * * * * *', scheduleStartTime: 1000, scheduleEndTime: Date.now() - 1000 }),
    );
    await api('POST', '/api/scheduler/schedules', saveBody(control, wf, { cronExpression: '* * * * * *' }));
    await eventually(async () => (await executionsOf(control)).length >= 3, 30_000, 250);
    for (const s of [paused, later, ended]) expect(await executionsOf(s)).toEqual([]);
    for (const s of [control, paused, later, ended]) await api('DELETE', `/api/scheduler/schedules/${s}`);
  });

  it('pause all stops every firing until resume all', async () => {
    const wf = await registerWorkflow();
    const name = uniqueName('all');
    await api('POST', '/api/scheduler/schedules', saveBody(name, wf, { cronExpression: '* * * * * *' }));
    await eventually(async () => (await executionsOf(name)).length >= 1, 20_000, 250);
    expect((await api('GET', '/api/scheduler/admin/pause')).status).toBe(200);
    try {
      // Settle: a firing in flight when the switch flipped may still land; after that nothing new.
      const settled = await executionsOf(name);
      await new Promise((r) => setTimeout(r, 1500));
      const before = await executionsOf(name);
      expect(before.length - settled.length).toBeLessThanOrEqual(1);
      // Another schedule's reminders keep running meanwhile: wait for three of its slots to pass.
      const probe = Date.now();
      await eventually(async () => Date.now() > probe + 3000 || undefined, 10_000, 200);
      expect((await executionsOf(name)).length).toBe(before.length);
    } finally {
      expect((await api('PUT', '/api/scheduler/admin/resume')).status).toBe(200);
    }
    const n = (await executionsOf(name)).length;
    await eventually(async () => (await executionsOf(name)).length > n, 20_000, 250);
    await api('DELETE', `/api/scheduler/schedules/${name}`);
  });
});

describe('executions search', () => {
  it('refuses what it cannot read with a 400', async () => {
    for (const q of ['query=nonsense', 'query=color%3Dred', 'query=state%3DDONE', 'sort=name%3AASC', 'size=0', 'start=-1']) {
      const r = await api('GET', `/api/scheduler/search/executions?${q}`);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: 400 });
    }
  });
});

describe('across a restart', () => {
  it('no slot fires twice when the server stops and starts again on the same data', async () => {
    const first = await startBaton();
    const dataDir = first.dataDir;
    const wf = uniqueName('restart_wf');
    const name = uniqueName('restart');
    await call(first.url, 'POST', '/api/metadata/workflowdef', { name: wf, version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] });
    await call(first.url, 'POST', '/api/scheduler/schedules', saveBody(name, wf, { cronExpression: '* * * * * *' }));
    const list = async (url: string): Promise<Execution[]> =>
      (await call<{ results: Execution[] }>(url, 'GET', `/api/scheduler/search/executions?query=${encodeURIComponent(`scheduleName=${name}`)}&size=1000`)).body
        .results;
    await eventually(async () => (await list(first.url)).length >= 2, 20_000, 200);
    await first.stop();
    const second = await startBaton({ BATON_DATA_DIR: dataDir });
    try {
      const before = (await list(second.url)).length;
      const after = await eventually(
        async () => {
          const e = await list(second.url);
          return e.length >= before + 2 && e;
        },
        20_000,
        200,
      );
      const slots = after.map((e) => e.scheduledTime);
      expect(new Set(slots).size).toBe(slots.length);
      expect(new Set(after.map((e) => e.workflowId)).size).toBe(after.length);
      // Every record names a workflow the store has, started for that very slot.
      for (const e of after)
        expect((await call(second.url, 'GET', `/api/workflow/${e.workflowId}?includeTasks=false`)).body.input._scheduledTime).toBe(e.scheduledTime);
    } finally {
      await second.stop();
    }
  });
});
