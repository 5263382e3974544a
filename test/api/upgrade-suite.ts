import type { ApiClient } from '../support/api-client';

// Orkes' POST /api/workflow/{workflowId}/upgrade over real HTTP: a running execution moves to another version;
// what cannot be mapped is a 4xx with a Conductor-style body and the execution is untouched. Shared by the
// embedded suite (test/api/upgrade.test.ts), the two-replica distributed one (test/distributed/upgrade.test.ts)
// and the real engines (test/real/distributed-upgrade-overview.test.ts).

export function describeUpgrade(client: () => ApiClient): void {
  const api = (): ApiClient => client();

  /** Version 1 runs worker tasks a, b; version 2 puts x before b and y after it. */
  async function twoVersions(): Promise<{ name: string; t: string }> {
    const name = api().uniq('upgwf');
    const t = api().uniq('upgt');
    await api().registerTaskDefs([{ name: t, retryCount: 0 }]);
    const node = (ref: string, inputParameters: Record<string, unknown> = {}) => ({ name: t, taskReferenceName: ref, type: 'SIMPLE', inputParameters });
    await api().register({ name, version: 1, tasks: [node('a'), node('b')] });
    await api().register({
      name,
      version: 2,
      tasks: [node('a'), node('x'), node('b'), node('y', { fromX: '${x.output.given}', who: '${workflow.input.who}' })],
    });
    return { name, t };
  }

  test('a running execution moves to version 2: x is SKIPPED with its output, y runs after b and reads it', async () => {
    const { name, t } = await twoVersions();
    const id = await api().start(name, { who: 'v1' }, { version: 1 });
    await api().complete(await api().pollOne(t));
    await api().waitForTask(id, 'b', 'SCHEDULED');
    const r = await api().call('POST', `/api/workflow/${id}/upgrade`, {
      name,
      version: 2,
      taskOutput: { x: { given: 'by upgrade' } },
      workflowInput: { who: 'v2' },
    });
    expect(r.status).toBe(200);
    const wf = await api().workflow(id);
    expect(wf).toMatchObject({ workflowVersion: 2, status: 'RUNNING', input: { who: 'v2' } });
    expect(wf.tasks.find((x) => x.referenceTaskName === 'x')).toMatchObject({ status: 'SKIPPED', outputData: { given: 'by upgrade' } });
    const b = await api().pollOne(t);
    expect(b.referenceTaskName).toBe('b');
    await api().complete(b);
    const y = await api().pollOne(t);
    expect(y).toMatchObject({ referenceTaskName: 'y', inputData: { fromX: 'by upgrade', who: 'v2' } });
    await api().complete(y);
    await api().waitForStatus(id, 'COMPLETED');
  });

  test('refusals: a missing version (404), another workflow or a bad body (400), a removed task in progress (409), an ended execution (409); nothing changes', async () => {
    const { name, t } = await twoVersions();
    const other = api().uniq('upgother');
    await api().register({ name: other, version: 1, tasks: [{ name: t, taskReferenceName: 'a', type: 'SIMPLE' }] });
    await api().register({ name, version: 3, tasks: [{ name: t, taskReferenceName: 'b', type: 'SIMPLE' }] });
    const id = await api().start(name, {}, { version: 1 });
    await api().waitForTask(id, 'a', 'SCHEDULED');
    const before = await api().workflow(id);
    const refused = async (body: unknown, status: number, code: string) => {
      const r = await api().call('POST', `/api/workflow/${id}/upgrade`, body);
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ status, code, message: expect.any(String) });
    };
    await refused({ name, version: 9 }, 404, 'WORKFLOW_DEF_NOT_FOUND');
    await refused({ name: other, version: 1 }, 400, 'UPGRADE_OTHER_WORKFLOW');
    await refused({ name }, 400, 'INVALID_INPUT');
    await refused({ name, version: 2, taskOutput: { b: {} } }, 400, 'UPGRADE_UNKNOWN_TASK_OUTPUT');
    await refused({ name, version: 3 }, 409, 'UPGRADE_TASK_REMOVED');
    expect(await api().workflow(id)).toEqual(before);
    const missing = await api().call('POST', `/api/workflow/nope-${api().uniq('id')}/upgrade`, { name, version: 2 });
    expect(missing.status).toBe(404);
    await api().call('DELETE', `/api/workflow/${id}?reason=stop`);
    await refused({ name, version: 2 }, 409, 'WORKFLOW_NOT_RUNNING');
  });
}
