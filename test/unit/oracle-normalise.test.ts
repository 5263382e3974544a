import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIFFERENCES, unexplained } from '../oracle/differences';
import { diff, IdMasker, normaliseWorkflow } from '../oracle/normalise';

// The differential suite's pure parts: what it masks, how it compares, how listed differences match.

const A = '11111111-2222-3333-4444-555555555555';
const B = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';

describe('normaliseWorkflow', () => {
  test('numbers ids by first appearance in key order, masks set times, drops empty values and echoes of definitions', () => {
    const wf = {
      workflowId: A,
      status: 'FAILED',
      startTime: 1700000000000,
      endTime: 0,
      output: {},
      reasonForIncompletion: `Task ${B} failed`,
      workflowDefinition: { name: 'x' },
      tasks: [
        { taskId: B, retriedTaskId: null, referenceTaskName: 'a', status: 'FAILED', updateTime: 5, workflowTask: { name: 'a' }, inputData: { z: A, a: B } },
      ],
    };
    expect(normaliseWorkflow(wf)).toEqual({
      status: 'FAILED',
      reasonForIncompletion: 'Task <id1> failed',
      tasks: [{ referenceTaskName: 'a', status: 'FAILED', inputData: { a: '<id1>', z: '<id2>' } }],
    });
  });

  test('the same masker keeps references between documents', () => {
    const ids = new IdMasker();
    const parent = normaliseWorkflow({ status: 'COMPLETED', tasks: [{ subWorkflowId: A }] }, ids);
    const child = normaliseWorkflow({ status: 'COMPLETED', parentWorkflowId: B, input: { parent: A } }, ids);
    expect(parent).toEqual({ status: 'COMPLETED', tasks: [{ subWorkflowId: '<id1>' }] });
    expect(child).toEqual({ status: 'COMPLETED', parentWorkflowId: '<id2>', input: { parent: '<id1>' } });
  });

  test('a timeout reason is compared without how late the sweeper noticed it', () => {
    expect(normaliseWorkflow({ reasonForIncompletion: 'Workflow timed out after 3 seconds. Timeout configured as 2 seconds.' })).toEqual({
      reasonForIncompletion: 'Workflow timed out after <n> seconds. Timeout configured as 2 seconds.',
    });
  });

  test("an HTTP task's response headers count as present, whatever they hold", () => {
    const wf = { tasks: [{ taskType: 'HTTP', outputData: { response: { statusCode: 200, headers: { date: ['today'] } } } }] };
    expect(normaliseWorkflow(wf)).toEqual({ tasks: [{ taskType: 'HTTP', outputData: { response: { statusCode: 200, headers: '<headers>' } } }] });
  });
});

describe('diff', () => {
  test('reports each differing leaf with both values, objects by key and arrays by index', () => {
    expect(diff({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 3, 4] }, d: true })).toEqual([
      { path: 'b.c[1]', conductor: 2, baton: 3 },
      { path: 'b.c[2]', conductor: undefined, baton: 4 },
      { path: 'd', conductor: undefined, baton: true },
    ]);
    expect(diff({ a: [1] }, { a: [1] })).toEqual([]);
  });
});

describe('unexplained', () => {
  test('a difference is explained only by an entry matching scenario, path and value condition', () => {
    const known = [
      { id: 'x', scenarios: /^one$/, path: /\.workerId$/, when: (d: { conductor: unknown }) => d.conductor === undefined, reason: 'r', fix: 'bug' as const },
    ];
    const d = { path: 'wf.tasks[0].workerId', conductor: undefined, baton: 'host' };
    expect(unexplained('one', [d], known)).toEqual([]);
    expect(unexplained('two', [d], known)).toEqual([d]);
    expect(unexplained('one', [{ ...d, conductor: 'w1' }], known)).toEqual([{ ...d, conductor: 'w1' }]);
  });

  test('every listed difference has a unique id and a reason', () => {
    expect(new Set(DIFFERENCES.map((d) => d.id)).size).toBe(DIFFERENCES.length);
    for (const d of DIFFERENCES) expect(d.reason.length).toBeGreaterThan(40);
  });

  test('docs/differences.md lists every entry', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'differences.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Measured against Conductor OSS'));
    for (const d of DIFFERENCES) expect(section).toContain(`\`${d.id}\``);
  });
});
