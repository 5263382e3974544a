import pino from 'pino';
import { queueActor } from '../../../src/actors/protocol/queue-protocol';
import { QueueActor } from '../../../src/actors/queue-actor';
import { LocalWakeUps } from '../../../src/limits/local/local-wake-ups';
import type { Task } from '../../../src/model/execution';
import type { ActorHost } from '../../../src/runtime/ports';
import { QueuePartitions, queueActorId } from '../../../src/services/queues';
import { TaskService } from '../../../src/services/task-service';

// A poll takes its entries out of the partition and claims each task; an entry whose claim fails goes
// back to the queue (handed out again about a second later), one whose claim answers null (the task is
// no longer SCHEDULED) is dropped. Real QueueActor and poll loop; the execution's claim is scripted.

type Step = 'fail' | 'task' | 'stale';

function world(claims: Step[], limits: { tryAcquire?: () => Promise<boolean> } = {}) {
  const queue = new QueueActor({ type: 'QueueActor', id: queueActorId('t', 0), setReminder: async () => undefined }, () => undefined);
  const claimed: string[] = [];
  const host = {
    invoke: async (type: string, _id: string, method: string, arg: { taskId: string }) => {
      if (type === 'QueueActor') return queue.invoke(method, arg);
      expect(method).toBe('claim');
      const step = claims.shift() ?? 'task';
      if (step === 'fail') throw new Error('execution unreachable');
      if (step === 'stale') return null;
      claimed.push(arg.taskId);
      return {
        taskId: arg.taskId,
        taskType: 't',
        status: 'IN_PROGRESS',
        workflowInstanceId: 'wf',
        workflowTask: {},
        iteration: 0,
        startTime: 2,
        scheduledTime: 1,
      } as unknown as Task;
    },
  } as unknown as ActorHost;
  const tasks = new TaskService({
    host,
    queues: (id: string) => queueActor(host, id),
    partitions: new QueuePartitions(1),
    metadata: { taskDef: () => (limits.tryAcquire ? { name: 't', concurrentExecLimit: 1 } : undefined) },
    limits: { tryAcquire: limits.tryAcquire, release: async () => undefined },
    wakeUps: new LocalWakeUps(),
    directory: { recordPoll: () => undefined },
    log: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
  } as unknown as ConstructorParameters<typeof TaskService>[0]);
  const push = (taskId: string) => queue.invoke('push', { taskId, workflowId: 'wf', priority: 0, visibleAt: 0 });
  return { tasks, queue, claimed, push };
}

const poll = (w: ReturnType<typeof world>, timeoutMs: number) => w.tasks.poll('t', { count: 1, timeoutMs, workerId: 'w1' });

test('an entry whose claim fails goes back to its queue and is handed out by a later poll', async () => {
  const w = world(['fail', 'fail']); // both attempts of the first claim
  await w.push('t1');
  expect(await poll(w, 0)).toEqual([]);
  expect(w.queue.size()).toBe(1); // back, not lost
  const later = await poll(w, 3000);
  expect(later.map((t) => t.taskId)).toEqual(['t1']);
  expect(w.claimed).toEqual(['t1']);
  expect(w.queue.size()).toBe(0);
});

test('an entry whose limit cannot be read goes back to its queue', async () => {
  let reads = 0;
  const w = world([], {
    tryAcquire: async () => {
      if (++reads === 1) throw new Error('limits store unavailable');
      return true;
    },
  });
  await w.push('t1');
  expect(await poll(w, 0)).toEqual([]);
  expect(w.queue.size()).toBe(1);
  expect((await poll(w, 3000)).map((t) => t.taskId)).toEqual(['t1']);
});

test('an entry whose claim answers null is dropped; the others of the take are handed out', async () => {
  const w = world(['stale', 'task']);
  await w.push('gone');
  await w.push('t2');
  const got = await w.tasks.poll('t', { count: 2, timeoutMs: 0, workerId: 'w1' });
  expect(got.map((t) => t.taskId)).toEqual(['t2']);
  expect(w.queue.size()).toBe(0);
});
