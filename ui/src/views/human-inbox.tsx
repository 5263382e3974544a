import { useEffect, useState, type FormEvent } from 'react';
import type { Task } from '../../../src/model/execution';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ErrorBanner, Json, time } from '../components/common';
import { JsonEditor, parseJson } from '../components/json-editor';
import { quoted } from '../model/execution-search';
import { Link, enc, useLocation, useNavigate } from '../router';

/** Pending HUMAN tasks, found through the task search; completed or failed through POST /api/task (the interface's HUMAN completion), as a worker would. */
export function HumanInboxView() {
  const { search } = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const workflow = search.get('workflow') ?? '';
  const taskName = search.get('task') ?? '';
  const openId = search.get('open') ?? '';
  const query = [
    `taskType = 'HUMAN'`,
    `status = 'IN_PROGRESS'`,
    ...(workflow ? [`workflowType = ${quoted(workflow)}`] : []),
    ...(taskName ? [`taskDefName = ${quoted(taskName)}`] : []),
  ].join(' AND ');
  const inbox = useAsync(() => call('GET /api/tasks/search-v2', { query: { query, size: 100, sort: 'scheduledTime:ASC', freeText: '*' } }), [query], 5000);
  const tasks = inbox.data?.results ?? [];
  const open = tasks.find((t) => t.taskId === openId);
  const set = (k: string, v: string): void => {
    const q = new URLSearchParams(search);
    if (v) q.set(k, v);
    else q.delete(k);
    navigate(`/human?${q}`, k === 'open');
  };
  const [f, setF] = useState({ workflow, taskName });
  useEffect(() => setF({ workflow, taskName }), [workflow, taskName]);
  const filter = (e: FormEvent): void => {
    e.preventDefault();
    const q = new URLSearchParams();
    if (f.workflow) q.set('workflow', f.workflow);
    if (f.taskName) q.set('task', f.taskName);
    navigate(`/human?${q}`);
  };
  return (
    <section>
      <h1>Human tasks</h1>
      <form className="panel filters" onSubmit={filter} role="search">
        <label>
          Workflow name
          <input name="workflow" value={f.workflow} onChange={(e) => setF({ ...f, workflow: e.target.value })} />
        </label>
        <label>
          Task name
          <input name="task" value={f.taskName} onChange={(e) => setF({ ...f, taskName: e.target.value })} />
        </label>
        <div className="row">
          <button type="submit" className="primary">
            Filter
          </button>
        </div>
      </form>
      <ErrorBanner error={inbox.error} />
      <div className="inbox" style={{ marginTop: 12 }}>
        <div className="table-wrap">
          <table data-testid="inbox">
            <thead>
              <tr>
                <th>Task</th>
                <th>Workflow</th>
                <th>Waiting since</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <tr key={t.taskId} data-testid="inbox-row" aria-selected={t.taskId === openId}>
                  <td>
                    <button type="button" className="link" onClick={() => set('open', t.taskId)}>
                      {t.taskDefName} <span className="muted">({t.referenceTaskName})</span>
                    </button>
                  </td>
                  <td>
                    <Link to={`/executions/${enc(t.workflowInstanceId)}`}>{t.workflowType}</Link>
                  </td>
                  <td>{time(t.startTime || t.scheduledTime)}</td>
                </tr>
              ))}
              {tasks.length === 0 && !inbox.loading && (
                <tr>
                  <td colSpan={3} className="muted">
                    No task waits for a person.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {open && <HumanTaskForm key={open.taskId} task={open} canAct={session.can('tasks:update')} onDone={() => (set('open', ''), inbox.reload())} />}
      </div>
    </section>
  );
}

function HumanTaskForm({ task, canAct, onDone }: { task: Task; canAct: boolean; onDone: () => void }) {
  const [output, setOutput] = useState('{\n  "approved": true\n}');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const send = async (status: 'COMPLETED' | 'FAILED'): Promise<void> => {
    setError(undefined);
    const p = parseJson(output);
    if (!p.ok) return setError(new Error(`Output: ${p.message}`));
    setBusy(true);
    try {
      await call('POST /api/task', {
        body: {
          workflowInstanceId: task.workflowInstanceId,
          taskId: task.taskId,
          status,
          outputData: p.value,
          ...(status === 'FAILED' ? { reasonForIncompletion: reason || 'Failed by a person' } : {}),
        },
      });
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="panel" data-testid="human-task">
      <h2>
        {task.taskDefName} <span className="muted">({task.referenceTaskName})</span>
      </h2>
      <p className="muted">
        Execution <Link to={`/executions/${enc(task.workflowInstanceId)}`}>{task.workflowInstanceId}</Link>
      </p>
      <h3>Input</h3>
      <Json value={task.inputData} testId="human-input" />
      {canAct ? (
        <>
          <h3>Output</h3>
          <JsonEditor value={output} onChange={setOutput} height="160px" label="Task output JSON" testId="human-output" />
          <label style={{ marginTop: 8 }}>
            Reason (when failing)
            <input value={reason} onChange={(e) => setReason(e.target.value)} name="reason" />
          </label>
          <ErrorBanner error={error} title="Not sent" />
          <div className="row" style={{ marginTop: 8 }}>
            <button type="button" className="primary" disabled={busy} onClick={() => void send('COMPLETED')}>
              Complete
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void send('FAILED')}>
              Fail
            </button>
          </div>
        </>
      ) : (
        <p className="muted">Your key may not update tasks.</p>
      )}
    </div>
  );
}
