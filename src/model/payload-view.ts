import type { Task, Workflow, WorkflowRecord } from './execution';

// How the API answers a payload stored outside the execution row: empty, with its path beside it,
// as Conductor's Workflow and Task do (clients download it through a READ location). Pure.

export function taskView<T extends Pick<Task, 'inputData' | 'outputData' | 'externalInputPayloadStoragePath' | 'externalOutputPayloadStoragePath'>>(t: T): T {
  if (!t.externalInputPayloadStoragePath && !t.externalOutputPayloadStoragePath) return t;
  return { ...t, inputData: t.externalInputPayloadStoragePath ? {} : t.inputData, outputData: t.externalOutputPayloadStoragePath ? {} : t.outputData };
}

export function workflowView<W extends WorkflowRecord | Workflow>(w: W): W {
  const tasks = 'tasks' in w ? { tasks: w.tasks.map(taskView) } : {};
  if (!w.externalInputPayloadStoragePath && !w.externalOutputPayloadStoragePath) return 'tasks' in w ? { ...w, ...tasks } : w;
  return { ...w, input: w.externalInputPayloadStoragePath ? {} : w.input, output: w.externalOutputPayloadStoragePath ? {} : w.output, ...tasks };
}
