import type { TaskType } from './task-type';

// JSON_JQ_TRANSFORM: `result` and `resultList` from a jq query (queryExpression) over the input.
export const jsonJqTransformTask: TaskType = {
  types: ['JSON_JQ_TRANSFORM'],
  kind: 'system',
  selfCompleting: true,
  start: (_turn, t) => ({
    wait: true,
    script: { purpose: 'taskResult', call: { kind: 'jq', query: String(t.inputData.queryExpression ?? '.'), input: t.inputData } },
  }),
  finishScript(_turn, _t, _request, outcome) {
    if (!outcome.ok) return { end: { output: { error: outcome.message }, status: 'FAILED', reason: outcome.message } };
    const results = outcome.value as unknown[];
    return { end: { output: { result: results[0] ?? null, resultList: results } } };
  },
};
