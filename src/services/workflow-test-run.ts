import { randomUUID } from 'node:crypto';
import { childWorkflowOf, isSelfCompletingType, taskTypeOf } from '../engine/tasks/registry';
import { ownValue } from '../lib/own-property';
import type { Workflow } from '../model/execution';
import type { TaskMock, WorkflowTestRequest } from '../model/workflow-test';
import { isTerminalTask, isTerminalWorkflow } from '../model/statuses';
import type { ExecutionStore } from '../store/ports';
import type { ExecutionWaiter } from './execution-waiter';
import type { WorkflowService } from './workflow-service';
import { Errors } from '../model/named-errors';

// POST /api/workflow/test: a real execution in a private task domain, so no worker
// ever sees its tasks, driven by mocked task results until it ends or nothing mocked is left to do.

const TEST_RUN_LIMIT_MS = 30_000;

type Step = { kind: 'progressed' } | { kind: 'ended' } | { kind: 'stuck' } | { kind: 'waiting'; watch: string[] };

export class WorkflowTestRunner {
  constructor(
    private readonly deps: { workflows: WorkflowService; store: ExecutionStore; waiter: ExecutionWaiter },
    private readonly limitMs = TEST_RUN_LIMIT_MS,
  ) {}

  async run(req: WorkflowTestRequest): Promise<Workflow> {
    const { taskRefToMockOutput: _mocks, subWorkflowTestRequest: _subs, ...start } = req;
    // Conductor's trick: a fresh domain for every task type, which no worker polls.
    const workflowId = await this.deps.workflows.start({ ...start, taskToDomain: { '*': randomUUID() } });
    await this.drive(workflowId, req, Date.now() + this.limitMs);
    return this.deps.workflows.get(workflowId, true);
  }

  /** Applies mocks until the execution ends, nothing can move, or the deadline passes. */
  private async drive(workflowId: string, req: WorkflowTestRequest, deadline: number): Promise<void> {
    const mocks = new Map(Object.entries(req.taskRefToMockOutput ?? {}).map(([ref, list]) => [ref, [...list]]));
    const driven = new Set<string>();
    // A step that moved the execution changed it while it ran, so the waiter checks again at once.
    await this.deps.waiter.until(async () => {
      const step = await this.step(workflowId, mocks, req.subWorkflowTestRequest ?? {}, driven, deadline);
      if (step.kind === 'ended' || step.kind === 'stuck') return { done: true, value: undefined };
      return { done: false, watch: step.kind === 'waiting' ? step.watch : [workflowId, ...driven] };
    }, deadline);
  }

  private async step(
    workflowId: string,
    mocks: Map<string, TaskMock[]>,
    subs: Record<string, WorkflowTestRequest>,
    driven: Set<string>,
    deadline: number,
  ): Promise<Step> {
    const { store, workflows } = this.deps;
    const s = await store.load(workflowId);
    if (!s) throw Errors.WORKFLOW_NOT_FOUND(workflowId);
    if (isTerminalWorkflow(s.workflow.status)) return { kind: 'ended' };
    const watch: string[] = [];
    // Tasks the decider finishes by itself need no mocked result.
    for (const t of s.tasks) {
      if (t.retried || isTerminalTask(t.status)) continue;
      // A START_WORKFLOW waits for its start, which the effect runner reports in a turn of its own.
      if (taskTypeOf(t).endsAfterEffect) {
        watch.push(workflowId);
        continue;
      }
      if (isSelfCompletingType(t.taskType)) continue;
      const queue = mocks.get(t.referenceTaskName) ?? mocks.get(t.workflowTask.taskReferenceName);
      const mock = queue?.shift();
      if (mock) {
        await workflows.updateTask({ workflowInstanceId: workflowId, taskId: t.taskId, status: mock.status ?? 'COMPLETED', outputData: mock.output ?? {} });
        return { kind: 'progressed' };
      }
      if (!taskTypeOf(t).followsChildWorkflow) continue;
      // The child starts after the parent's turn, and the parent hears of its end after the child's.
      const childId = childWorkflowOf(t);
      const child = childId ? await store.load(childId) : undefined;
      if (!child || isTerminalWorkflow(child.workflow.status)) {
        watch.push(workflowId, ...(childId ? [childId] : []));
        continue;
      }
      if (driven.has(child.workflow.workflowId)) continue;
      driven.add(child.workflow.workflowId);
      const ref = ownValue(subs, t.referenceTaskName) ? t.referenceTaskName : t.workflowTask.taskReferenceName;
      await this.drive(child.workflow.workflowId, ownValue(subs, ref) ?? { name: child.workflow.workflowName }, deadline);
      return { kind: 'progressed' };
    }
    return watch.length > 0 ? { kind: 'waiting', watch } : { kind: 'stuck' };
  }
}
