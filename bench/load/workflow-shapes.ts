/** The workflows the bench runs, as Conductor definitions plus what the load side needs to know about them. */

export interface WorkflowShape {
  key: 'simple3' | 'steps13';
  title: string;
  /** Workflow started by the load generator. */
  mainWorkflow: string;
  taskDefs: Record<string, unknown>[];
  /** Registered in order (a sub-workflow's definition before its parent). */
  workflowDefs: Record<string, unknown>[];
  taskTypes: string[];
  /** The main workflow completes when this task of it completes. */
  finalTaskRef: string;
  /** Worker tasks per main workflow, sub-workflow steps included. */
  workerTasksPerWorkflow: number;
  /** Workflow executions per main workflow (1 + sub-workflows). */
  executionsPerWorkflow: number;
}

const taskDef = (name: string): Record<string, unknown> => ({
  name,
  retryCount: 0,
  timeoutSeconds: 0,
  responseTimeoutSeconds: 300,
  ownerEmail: 'bench@baton.local',
});

const simpleTask = (type: string, ref: string, input: Record<string, unknown>): Record<string, unknown> => ({
  name: type,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters: input,
});

const workflowDef = (name: string, tasks: Record<string, unknown>[], outputParameters: Record<string, unknown>): Record<string, unknown> => ({
  name,
  version: 1,
  schemaVersion: 2,
  ownerEmail: 'bench@baton.local',
  restartable: true,
  timeoutSeconds: 0,
  tasks,
  outputParameters,
});

/** Three SIMPLE tasks in sequence, each reading its predecessor's output. */
export function simple3Shape(prefix: string): WorkflowShape {
  const types = [`${prefix}_s3_a`, `${prefix}_s3_b`, `${prefix}_s3_c`];
  const main = `${prefix}_simple3`;
  const tasks = [
    simpleTask(types[0] as string, 't1', { n: '${workflow.input.n}' }),
    simpleTask(types[1] as string, 't2', { n: '${t1.output.v}' }),
    simpleTask(types[2] as string, 't3', { n: '${t2.output.v}' }),
  ];
  return {
    key: 'simple3',
    title: '3-task SIMPLE workflow',
    mainWorkflow: main,
    taskDefs: types.map(taskDef),
    workflowDefs: [workflowDef(main, tasks, { result: '${t3.output.v}' })],
    taskTypes: types,
    finalTaskRef: 't3',
    workerTasksPerWorkflow: 3,
    executionsPerWorkflow: 1,
  };
}

/**
 * The shape of Orkes' published Conductor benchmark: 13 steps, one of them a sub-workflow with a single
 * step inside. Here: 12 SIMPLE tasks over four task types and a SUB_WORKFLOW in the middle.
 */
export function steps13Shape(prefix: string): WorkflowShape {
  const types = ['a', 'b', 'c', 'd'].map((s) => `${prefix}_s13_${s}`);
  const leafType = `${prefix}_s13_leaf`;
  const child = `${prefix}_steps13_child`;
  const main = `${prefix}_steps13`;
  const tasks: Record<string, unknown>[] = [];
  let prev = '${workflow.input.n}';
  for (let i = 1; i <= 12; i++) {
    const ref = `s${String(i).padStart(2, '0')}`;
    tasks.push(simpleTask(types[(i - 1) % 4] as string, ref, { n: prev, step: i }));
    prev = `\${${ref}.output.v}`;
    if (i === 6) {
      tasks.push({
        name: 'sub',
        taskReferenceName: 'sub',
        type: 'SUB_WORKFLOW',
        inputParameters: { n: prev },
        subWorkflowParam: { name: child, version: 1 },
      });
    }
  }
  const childDef = workflowDef(child, [simpleTask(leafType, 'leaf', { n: '${workflow.input.n}' })], { v: '${leaf.output.v}' });
  return {
    key: 'steps13',
    title: '13-step workflow with a sub-workflow',
    mainWorkflow: main,
    taskDefs: [...types, leafType].map(taskDef),
    workflowDefs: [childDef, workflowDef(main, tasks, { result: '${s12.output.v}' })],
    taskTypes: [...types, leafType],
    finalTaskRef: 's12',
    workerTasksPerWorkflow: 13,
    executionsPerWorkflow: 2,
  };
}
