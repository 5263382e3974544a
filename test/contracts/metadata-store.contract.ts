import { randomUUID } from 'node:crypto';
import { TaskDefSchema, WorkflowDefSchema, type TaskDef, type WorkflowDef } from '../../src/model/definitions';
import type { AccessKeyRecord, ApplicationRecord } from '../../src/model/applications';
import { EventHandlerSchema, type EventExecution, type EventHandler } from '../../src/model/events';
import type { MetadataStore } from '../../src/store/ports';
import { T0 } from './fixtures';

/**
 * The definition of a MetadataStore: every adapter runs this one list of behaviours. Stores may be
 * shared between tests, so every test uses fresh names.
 */
export interface MetadataStoreUnderTest {
  store: MetadataStore;
  cleanup(): Promise<void>;
}

const fresh = (prefix: string): string => `${prefix}_${randomUUID().slice(0, 8)}`;

const taskDef = (name: string, over: Record<string, unknown> = {}): TaskDef =>
  TaskDefSchema.parse({ name, retryCount: 2, responseTimeoutSeconds: 30, ...over });

const workflowDef = (name: string, version: number, over: Record<string, unknown> = {}): WorkflowDef =>
  WorkflowDefSchema.parse({
    name,
    version,
    description: `v${version}`,
    tasks: [{ name: 'task_a', taskReferenceName: 'a', type: 'SIMPLE', inputParameters: { x: '${workflow.input.x}' } }],
    ...over,
  });

const handler = (name: string, over: Record<string, unknown> = {}): EventHandler =>
  EventHandlerSchema.parse({
    name,
    event: `conductor:${name}:done`,
    active: true,
    actions: [{ action: 'start_workflow', start_workflow: { name: 'follow_up', input: { id: '${id}' } } }],
    ...over,
  });

const eventExecution = (name: string, id: string, created: number): EventExecution => ({
  id,
  messageId: `msg-${id}`,
  name,
  event: `conductor:${name}:done`,
  created,
  status: 'COMPLETED',
  action: 'start_workflow',
  output: { workflowId: `wf-${id}` },
});

export function describeMetadataStoreContract(name: string, make: () => Promise<MetadataStoreUnderTest>): void {
  describe(`MetadataStore contract: ${name}`, () => {
    let store: MetadataStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ store, cleanup } = await make());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    describe('tags', () => {
      it('keeps the tags of task and workflow definitions and event handlers with them', async () => {
        const tags = [
          { key: 'team', value: 'ops' },
          { key: 'tier', value: '1', type: 'METADATA' },
        ];
        const td = taskDef(fresh('tagged'), { tags });
        const wd = workflowDef(fresh('tagged'), 1, { tags });
        const eh = handler(fresh('tagged'), { tags });
        await store.putTaskDef(td);
        await store.putWorkflowDef(wd);
        await store.putEventHandler(eh);
        expect((await store.getTaskDef(td.name))?.tags).toEqual(tags);
        expect((await store.getWorkflowDef(wd.name, 1))?.tags).toEqual(tags);
        expect(((await store.getEventHandler(eh.name)) as { tags?: unknown })?.tags).toEqual(tags);
        expect((await store.listWorkflowDefs()).find((d) => d.name === wd.name)?.tags).toEqual(tags);
      });
    });

    describe('task definitions', () => {
      it('stores, replaces, lists and deletes task definitions', async () => {
        const a = taskDef(fresh('td'));
        const b = taskDef(fresh('td'), { concurrentExecLimit: 3, inputTemplate: { k: [1, 2] } });
        await store.putTaskDef(a);
        await store.putTaskDef(b);
        expect(await store.getTaskDef(a.name)).toEqual(a);
        expect(await store.getTaskDef(b.name)).toEqual(b);

        const a2 = { ...a, retryCount: 9, description: 'changed' };
        await store.putTaskDef(a2);
        expect(await store.getTaskDef(a.name)).toEqual(a2);

        const listed = (await store.listTaskDefs()).filter((d) => d.name === a.name || d.name === b.name);
        expect(listed).toEqual([a2, b].sort((x, y) => x.name.localeCompare(y.name)));

        expect(await store.deleteTaskDef(a.name)).toBe(true);
        expect(await store.getTaskDef(a.name)).toBeUndefined();
        expect(await store.deleteTaskDef(a.name)).toBe(false);
        expect((await store.listTaskDefs()).some((d) => d.name === a.name)).toBe(false);
      });

      it('returns undefined for an unknown task definition', async () => {
        expect(await store.getTaskDef(fresh('missing'))).toBeUndefined();
      });
    });

    describe('workflow definitions', () => {
      it('reads a given version, and the highest version when none is given', async () => {
        const n = fresh('wd');
        const [v1, v2, v10] = [workflowDef(n, 1), workflowDef(n, 2), workflowDef(n, 10)];
        await store.putWorkflowDef(v2);
        await store.putWorkflowDef(v10);
        await store.putWorkflowDef(v1);
        expect(await store.getWorkflowDef(n, 1)).toEqual(v1);
        expect(await store.getWorkflowDef(n, 2)).toEqual(v2);
        expect(await store.getWorkflowDef(n)).toEqual(v10);
        expect(await store.getWorkflowDef(n, 3)).toBeUndefined();
        expect(await store.getWorkflowDef(fresh('missing'))).toBeUndefined();
      });

      it('replaces a version in place and lists every version of every name', async () => {
        const n = fresh('wd');
        const m = fresh('wd');
        await store.putWorkflowDef(workflowDef(n, 1));
        const replaced = workflowDef(n, 1, { description: 'replaced', timeoutSeconds: 60 });
        await store.putWorkflowDef(replaced);
        await store.putWorkflowDef(workflowDef(n, 2));
        await store.putWorkflowDef(workflowDef(m, 1));
        expect(await store.getWorkflowDef(n, 1)).toEqual(replaced);

        const listed = (await store.listWorkflowDefs()).filter((d) => d.name === n || d.name === m);
        expect(listed.map((d) => `${d.name}:${d.version}`).sort()).toEqual([`${n}:1`, `${n}:2`, `${m}:1`].sort());
        expect(listed.find((d) => d.name === n && d.version === 1)).toEqual(replaced);
      });

      it('deletes one version; the latest then falls back to the next highest', async () => {
        const n = fresh('wd');
        await store.putWorkflowDef(workflowDef(n, 1));
        await store.putWorkflowDef(workflowDef(n, 2));
        expect(await store.deleteWorkflowDef(n, 2)).toBe(true);
        expect(await store.getWorkflowDef(n, 2)).toBeUndefined();
        expect((await store.getWorkflowDef(n))?.version).toBe(1);
        expect(await store.deleteWorkflowDef(n, 2)).toBe(false);
        expect(await store.deleteWorkflowDef(n, 1)).toBe(true);
        expect(await store.getWorkflowDef(n)).toBeUndefined();
      });
    });

    describe('event handlers', () => {
      it('stores, replaces, lists and deletes event handlers', async () => {
        const h = handler(fresh('eh'));
        const g = handler(fresh('eh'), { active: false, condition: "$.status == 'ok'" });
        await store.putEventHandler(h);
        await store.putEventHandler(g);
        expect(await store.getEventHandler(h.name)).toEqual(h);

        const h2 = { ...h, active: false };
        await store.putEventHandler(h2);
        expect(await store.getEventHandler(h.name)).toEqual(h2);
        const listed = (await store.listEventHandlers()).filter((x) => x.name === h.name || x.name === g.name);
        expect(listed).toEqual([h2, g].sort((x, y) => x.name.localeCompare(y.name)));

        expect(await store.deleteEventHandler(h.name)).toBe(true);
        expect(await store.getEventHandler(h.name)).toBeUndefined();
        expect(await store.deleteEventHandler(h.name)).toBe(false);
      });
    });

    describe('event executions', () => {
      it('records executions and lists them by handler, oldest first, or all of them', async () => {
        const h = fresh('eh');
        const g = fresh('eh');
        const e1 = eventExecution(h, `${h}-1`, T0 + 2000);
        const e2 = eventExecution(h, `${h}-2`, T0 + 1000);
        const e3 = eventExecution(g, `${g}-1`, T0 + 3 * 86_400_000);
        for (const e of [e1, e2, e3]) await store.addEventExecution(e);

        expect(await store.listEventExecutions(h)).toEqual([e2, e1]);
        expect(await store.listEventExecutions(g)).toEqual([e3]);
        expect(await store.listEventExecutions(fresh('none'))).toEqual([]);
        const all = (await store.listEventExecutions()).filter((e) => e.name === h || e.name === g);
        expect(all).toEqual([e2, e1, e3]);
      });
    });

    describe('applications and access keys', () => {
      const app = (id: string, over: Partial<ApplicationRecord> = {}): ApplicationRecord => ({
        id,
        name: `name of ${id}`,
        createdBy: 'admin',
        createTime: T0,
        updatedBy: 'admin',
        updateTime: T0,
        roles: ['WORKER'],
        tags: [],
        ...over,
      });
      const key = (id: string, applicationId: string, over: Partial<AccessKeyRecord> = {}): AccessKeyRecord => ({
        id,
        applicationId,
        secretHash: `scrypt$16384$8$1$salt-${id}$hash-${id}`,
        status: 'ACTIVE',
        createdAt: T0,
        ...over,
      });

      it('stores, replaces, lists and deletes applications', async () => {
        const a = app(fresh('app'));
        const b = app(fresh('app'), { roles: ['ADMIN', 'READ_ONLY'], tags: [{ key: 'team', value: 'x' }] });
        await store.putApplication(a);
        await store.putApplication(b);
        expect(await store.getApplication(a.id)).toEqual(a);
        const a2 = { ...a, name: 'renamed', roles: ['WORKFLOW_MANAGER' as const], updateTime: T0 + 1 };
        await store.putApplication(a2);
        expect(await store.getApplication(a.id)).toEqual(a2);
        const listed = (await store.listApplications()).filter((x) => x.id === a.id || x.id === b.id);
        expect(listed).toEqual([a2, b].sort((x, y) => x.id.localeCompare(y.id)));
        expect(await store.deleteApplication(a.id)).toBe(true);
        expect(await store.getApplication(a.id)).toBeUndefined();
        expect(await store.deleteApplication(a.id)).toBe(false);
      });

      it('counts applications, counting no further than asked; a replaced one counts once', async () => {
        const before = await store.countApplications(1_000_000);
        const [a, b] = [app(fresh('app')), app(fresh('app'))];
        await store.putApplication(a);
        await store.putApplication(b);
        await store.putApplication({ ...a, name: 'renamed' });
        expect(await store.countApplications(1_000_000)).toBe(before + 2);
        expect(await store.countApplications(before + 1)).toBe(before + 1);
        await store.deleteApplication(a.id);
        expect(await store.countApplications(1_000_000)).toBe(before + 1);
      });

      it('stores access keys, lists them by application, replaces and deletes them', async () => {
        const appId = fresh('app');
        const other = fresh('app');
        const k1 = key(fresh('key'), appId);
        const k2 = key(fresh('key'), appId, { status: 'INACTIVE' });
        const k3 = key(fresh('key'), other);
        for (const k of [k1, k2, k3]) await store.putAccessKey(k);
        expect(await store.getAccessKey(k1.id)).toEqual(k1);
        expect(await store.listAccessKeys(appId)).toEqual([k1, k2].sort((x, y) => x.id.localeCompare(y.id)));
        expect(await store.listAccessKeys(other)).toEqual([k3]);
        expect(await store.listAccessKeys(fresh('none'))).toEqual([]);

        const k1off = { ...k1, status: 'INACTIVE' as const };
        await store.putAccessKey(k1off);
        expect(await store.getAccessKey(k1.id)).toEqual(k1off);
        expect(await store.deleteAccessKey(k1.id)).toBe(true);
        expect(await store.getAccessKey(k1.id)).toBeUndefined();
        expect(await store.deleteAccessKey(k1.id)).toBe(false);
        expect(await store.listAccessKeys(appId)).toEqual([k2]);
      });

      it('keeps the first value of a setting: later puts answer the stored one', async () => {
        const name = fresh('setting');
        expect(await store.putSettingIfAbsent(name, 'first')).toBe('first');
        expect(await store.putSettingIfAbsent(name, 'second')).toBe('first');
        const racing = fresh('setting');
        const answers = await Promise.all(['a', 'b', 'c', 'd'].map((v) => store.putSettingIfAbsent(racing, v)));
        expect(new Set(answers).size).toBe(1);
      });
    });
  });
}
