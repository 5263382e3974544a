import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// Task logs are bounded: a longest line (BATON_TASK_LOG_MAX_LINE_BYTES) and a most lines per task
// (BATON_TASK_LOG_MAX_LINES). Past them the log route answers a 4xx and stores nothing; a worker's
// update is still applied, its lines past the limit not kept.

const baton = useBaton({ BATON_TASK_LOG_MAX_LINE_BYTES: '1024', BATON_TASK_LOG_MAX_LINES: '5' });
const api = apiClient(baton.url);

const postLine = (taskId: string, line: string) => api.call('POST', `/api/tasks/${taskId}/log`, undefined, { raw: line, contentType: 'text/plain' });

test('a line over BATON_TASK_LOG_MAX_LINE_BYTES is a 413 naming the limit, and nothing is stored', async () => {
  const { taskId } = await api.polledTask('log');
  const r = await postLine(taskId, 'x'.repeat(1025));
  expect(r.status).toBe(413);
  expect(r.body).toMatchObject({ status: 413, message: 'Log line is 1025 bytes, over the limit of 1024 bytes (BATON_TASK_LOG_MAX_LINE_BYTES)' });
  // Bytes, not characters: 342 three-byte characters are 1,026 bytes.
  expect((await postLine(taskId, '€'.repeat(342))).status).toBe(413);
  expect(await api.taskLogLines(taskId)).toEqual([]);
  expect((await postLine(taskId, 'x'.repeat(1024))).status).toBe(200);
  expect(await api.taskLogLines(taskId)).toEqual(['x'.repeat(1024)]);
});

test('a task keeps at most BATON_TASK_LOG_MAX_LINES lines, the first ones; one more is a 409 and changes nothing', async () => {
  const { taskId } = await api.polledTask('log');
  for (let i = 0; i < 5; i++) expect((await postLine(taskId, `line ${i}`)).status).toBe(200);
  const r = await postLine(taskId, 'line 5');
  expect(r.status).toBe(409);
  expect(r.body).toMatchObject({ status: 409, message: `Task ${taskId} already has 5 log lines, the most one task keeps (BATON_TASK_LOG_MAX_LINES)` });
  expect(await api.taskLogLines(taskId)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
});

test("a worker's update is applied even past the limits: its lines fill the task's log up to the limit, a long one cut", async () => {
  const { workflowId, taskId } = await api.polledTask('log');
  expect((await postLine(taskId, 'from the log route')).status).toBe(200);
  const logs = [{ log: 'y'.repeat(5000) }, ...Array.from({ length: 8 }, (_, i) => ({ log: `update ${i}` }))];
  const r = await api.call('POST', '/api/tasks', { workflowInstanceId: workflowId, taskId, status: 'COMPLETED', logs });
  expect(r.status).toBe(200);
  await api.waitForStatus(workflowId, 'COMPLETED');
  const lines = await api.taskLogLines(taskId);
  expect(lines).toHaveLength(5);
  expect(lines[0]).toBe('from the log route');
  expect(Buffer.byteLength(lines[1]!, 'utf8')).toBeLessThanOrEqual(1024);
  expect(lines[1]).toMatch(/^y+ …\[cut: BATON_TASK_LOG_MAX_LINE_BYTES\]$/);
  expect(lines.slice(2)).toEqual(['update 0', 'update 1', 'update 2']);
});
