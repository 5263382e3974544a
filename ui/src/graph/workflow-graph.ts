import type { WorkflowTask } from '../../../src/model/definitions';
import type { Task, Workflow } from '../../../src/model/execution';

// A workflow definition as a graph, annotated with what an execution did: each definition task is
// a node keyed by its reference name, coloured by its latest task; SWITCH cases and FORK branches
// fan out and meet at the next task; a DO_WHILE body ends in a loop-end node with an edge back;
// a dynamic fork shows the branches it expanded into. Pure: data in, nodes and edges out.

export type NodeKind = 'start' | 'end' | 'task' | 'loopEnd';

export interface GraphNode {
  id: string;
  kind: NodeKind;
  label: string;
  /** The definition's reference name (tasks only). */
  ref?: string;
  type?: string;
  /** Status of the latest task for this node; absent when it never ran. */
  status?: string;
  taskId?: string;
  subWorkflowId?: string;
  /** Tasks the execution ran for this node (retries and loop iterations). */
  attempts: number;
  /** DO_WHILE: iterations run so far. */
  iterations?: number;
  /** Added by a dynamic fork at run time, not in the definition. */
  dynamic?: boolean;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  label?: string;
  /** On the path the execution took. */
  taken: boolean;
  /** A loop's way back (drawn, not used for layout). */
  back?: boolean;
}

export interface WorkflowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export const START_ID = '#start';
export const END_ID = '#end';
const loopEndId = (ref: string): string => `${ref}#loop-end`;

const SWITCH_TYPES = new Set(['SWITCH', 'DECISION']);

/** The reference name a task has in its definition: loop iterations carry a `__<iteration>` suffix. */
export function definitionRef(t: Pick<Task, 'referenceTaskName' | 'iteration'>): string {
  const suffix = `__${t.iteration}`;
  return t.iteration > 0 && t.referenceTaskName.endsWith(suffix) ? t.referenceTaskName.slice(0, -suffix.length) : t.referenceTaskName;
}

interface Pred {
  id: string;
  label?: string;
}

export function workflowGraph(defTasks: WorkflowTask[], execution?: Pick<Workflow, 'status' | 'tasks'>): WorkflowGraph {
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const tasks = execution?.tasks ?? [];

  // The latest task (highest seq) per definition reference name, and how many ran.
  const latest = new Map<string, Task>();
  const attempts = new Map<string, number>();
  for (const t of tasks) {
    const ref = definitionRef(t);
    attempts.set(ref, (attempts.get(ref) ?? 0) + 1);
    const prev = latest.get(ref);
    if (!prev || t.seq > prev.seq) latest.set(ref, t);
  }

  const addNode = (n: Omit<GraphNode, 'attempts'> & { attempts?: number }): GraphNode => {
    const node: GraphNode = { attempts: 0, ...n };
    nodes.set(node.id, node);
    return node;
  };
  const connect = (preds: Pred[], target: string): void => {
    for (const p of preds)
      edges.push({
        id: `${p.id}->${target}${p.label !== undefined ? `:${p.label}` : ''}`,
        source: p.id,
        target,
        ...(p.label !== undefined ? { label: p.label } : {}),
        taken: false,
      });
  };
  const taskNode = (wt: WorkflowTask, dynamic = false): GraphNode => {
    const t = latest.get(wt.taskReferenceName);
    return addNode({
      id: wt.taskReferenceName,
      kind: 'task',
      label: wt.name,
      ref: wt.taskReferenceName,
      type: wt.type,
      ...(t ? { status: t.status, taskId: t.taskId, attempts: attempts.get(wt.taskReferenceName) ?? 0 } : {}),
      ...(t?.subWorkflowId ? { subWorkflowId: t.subWorkflowId } : {}),
      ...(wt.type === 'DO_WHILE' && t ? { iterations: t.iteration } : {}),
      ...(dynamic ? { dynamic } : {}),
    });
  };

  const addList = (list: WorkflowTask[], preds: Pred[]): Pred[] => {
    let at = preds;
    for (const wt of list) at = addTask(wt, at);
    return at;
  };

  const addTask = (wt: WorkflowTask, preds: Pred[]): Pred[] => {
    const node = taskNode(wt);
    connect(preds, node.id);
    const self: Pred[] = [{ id: node.id }];
    if (SWITCH_TYPES.has(wt.type)) {
      const out: Pred[] = [];
      for (const [value, branch] of Object.entries(wt.decisionCases ?? {})) out.push(...addList(branch, [{ id: node.id, label: value }]));
      out.push(...addList(wt.defaultCase ?? [], [{ id: node.id, label: 'default' }]));
      return out;
    }
    if (wt.type === 'FORK_JOIN') {
      const branches = wt.forkTasks ?? [];
      return branches.length ? branches.flatMap((b) => addList(b, self)) : self;
    }
    if (wt.type === 'FORK_JOIN_DYNAMIC') {
      const fork = latest.get(wt.taskReferenceName);
      const forked = fork?.inputData.forkedTasks;
      const defs = fork?.inputData.forkedTaskDefs;
      if (!Array.isArray(forked) || forked.length === 0) return self;
      const byRef = new Map<string, WorkflowTask>((Array.isArray(defs) ? (defs as WorkflowTask[]) : []).map((d) => [d.taskReferenceName, d]));
      return forked.map((ref) => {
        const r = String(ref);
        const t = latest.get(r);
        const d = byRef.get(r) ?? {
          name: t?.taskDefName ?? r,
          taskReferenceName: r,
          type: t?.workflowTask.type ?? t?.taskType ?? 'SIMPLE',
          inputParameters: {},
        };
        const n = taskNode(d, true);
        connect(self, n.id);
        return { id: n.id };
      });
    }
    if (wt.type === 'DO_WHILE') {
      const end = addNode({
        id: loopEndId(node.id),
        kind: 'loopEnd',
        label: node.iterations ? `loop ×${node.iterations}` : 'loop',
        ...(node.status ? { status: node.status } : {}),
      });
      connect(addList(wt.loopOver ?? [], self), end.id);
      edges.push({ id: `${end.id}->${node.id}:back`, source: end.id, target: node.id, label: 'repeat', taken: false, back: true });
      return [{ id: end.id }];
    }
    if (wt.type === 'TERMINATE') return [];
    return self;
  };

  addNode({ id: START_ID, kind: 'start', label: 'start', ...(execution ? { status: 'COMPLETED' } : {}) });
  const exits = addList(defTasks, [{ id: START_ID }]);
  const done = execution && ['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'].includes(execution.status);
  addNode({ id: END_ID, kind: 'end', label: 'end', ...(done ? { status: execution.status } : {}) });
  connect(exits, END_ID);

  // The path taken: both ends ran, and a SWITCH's edge carries the case it chose.
  const chosenCase = (switchRef: string): string | undefined => {
    const t = latest.get(switchRef);
    if (!t) return undefined;
    // SWITCH answers evaluationResult, DECISION caseOutput (as Conductor's Switch and Decision tasks).
    const r = t.outputData.evaluationResult ?? t.outputData.caseOutput;
    const value = Array.isArray(r) ? r[0] : undefined;
    const wt = t.workflowTask;
    return value !== undefined && Object.prototype.hasOwnProperty.call(wt.decisionCases ?? {}, String(value)) ? String(value) : 'default';
  };
  const ran = (id: string): boolean => {
    const n = nodes.get(id);
    return n !== undefined && n.status !== undefined && (n.kind !== 'end' || !!done);
  };
  for (const e of edges) {
    if (e.back) {
      e.taken = (nodes.get(e.target)?.iterations ?? 0) > 1;
      continue;
    }
    if (!ran(e.source) || !ran(e.target)) continue;
    const src = nodes.get(e.source)!;
    if (src.type && SWITCH_TYPES.has(src.type) && e.label !== undefined) e.taken = chosenCase(src.id) === e.label;
    else e.taken = true;
  }
  return { nodes: [...nodes.values()], edges };
}

/** The node of a task (its definition ref), for selecting a task from the graph or the timeline. */
export const nodeIdOfTask = (t: Pick<Task, 'referenceTaskName' | 'iteration'>): string => definitionRef(t);
