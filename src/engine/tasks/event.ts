import { lineageOf } from '../../model/lineage';
import type { TaskType } from './task-type';

// EVENT: publishes its input, with the workflow's identity, to its sink (`conductor` or `conductor:name`
// is Conductor's own queue, named after the workflow); with asyncComplete it then waits for an update.
export const eventTask: TaskType = {
  types: ['EVENT'],
  kind: 'system',
  skippableWhileOpen: true,
  selfCompleting: true,
  // Conductor's EVENT mapper adds both to the input, so they are in the published payload and the output too.
  inputAdditions: (wt) => ({ sink: wt.sink ?? null, asyncComplete: wt.asyncComplete ?? false }),
  start(turn, t) {
    const wf = turn.state.workflow;
    const sink = t.workflowTask.sink ?? '';
    const event =
      sink === 'conductor'
        ? `conductor:${wf.workflowName}:${t.referenceTaskName}`
        : sink.startsWith('conductor:') && sink.split(':').length === 2
          ? `conductor:${wf.workflowName}:${sink.slice(10)}`
          : sink;
    const payload = {
      ...t.inputData,
      workflowInstanceId: wf.workflowId,
      workflowType: wf.workflowName,
      workflowVersion: wf.workflowVersion,
      correlationId: wf.correlationId,
    };
    turn.log.emit({ kind: 'publish', eventId: t.taskId, sink: event, payload, lineage: lineageOf(wf) });
    const output = { ...payload, event_produced: event };
    if (!t.workflowTask.asyncComplete) return { end: { output } };
    // Waiting for its update, it already shows what it published, as Conductor's does.
    t.outputData = output;
    return { wait: true };
  },
};
