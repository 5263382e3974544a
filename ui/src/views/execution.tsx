import { useMemo, useState } from 'react';
import type { Task, Workflow } from '../../../src/model/execution';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ConfirmDialog, ErrorBanner, Json, StatusBadge, Tabs, duration, time, type ConfirmRequest } from '../components/common';
import { JsonEditor, parseJson } from '../components/json-editor';
import { WorkflowDiagram } from '../graph/workflow-diagram';
import { nodeIdOfTask, workflowGraph } from '../graph/workflow-graph';
import { Link, enc, useLocation, useNavigate } from '../router';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED']);
const OPEN_TASK = new Set(['SCHEDULED', 'IN_PROGRESS']);

type Tab = 'timeline' | 'tasks' | 'io' | 'variables' | 'json';
const TABS: Array<[Tab, string]> = [
  ['timeline', 'Timeline'],
  ['tasks', 'Tasks'],
  ['io', 'Input and output'],
  ['variables', 'Variables'],
  ['json', 'JSON'],
];

export function ExecutionView({ id }: { id: string }) {
  const { search } = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const selectedTaskId = search.get('task') ?? undefined;
  const tab = (TABS.some(([k]) => k === search.get('tab')) ? search.get('tab') : 'timeline') as Tab;
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const [removed, setRemoved] = useState(false);

  // Live while it runs: re-read every 2 s until the execution ends.
  const [live, setLive] = useState(true);
  const wf = useAsync(
    async () => {
      const w = await call('GET /api/workflow/{workflowId}', { params: { workflowId: id }, query: { includeTasks: true } });
      setLive(!TERMINAL.has(w.status));
      return w;
    },
    [id],
    live && !removed ? 2000 : undefined,
  );
  const w = wf.data;
  const graph = useMemo(() => (w ? workflowGraph(w.workflowDefinition.tasks, w) : undefined), [w]);
  const tasks = useMemo(() => [...(w?.tasks ?? [])].sort((a, b) => a.seq - b.seq), [w]);
  const selected = tasks.find((t) => t.taskId === selectedTaskId);
  // A node that has not run yet is selected by its reference name (it has no task to show).
  const selectedRef = selected ? undefined : (search.get('node') ?? undefined);
  const select = (key: 'task' | 'node' | 'tab', value: string | undefined): void => {
    const q = new URLSearchParams(search);
    if (key !== 'tab') {
      q.delete('task');
      q.delete('node');
    }
    if (value) q.set(key, value);
    else q.delete(key);
    const s = q.toString();
    navigate(`/executions/${enc(id)}${s ? `?${s}` : ''}`, true);
  };
  const selectTask = (taskId: string | undefined): void => select('task', taskId);

  if (removed)
    return (
      <div className="notice">
        Execution {id} was removed. <Link to="/executions">Back to executions</Link>
      </div>
    );
  if (!w) return wf.error ? <ErrorBanner error={wf.error} title={`Execution ${id}`} /> : <p className="muted">Loading…</p>;

  // An archived execution is read-only: the server refuses every change (409).
  const can = session.can('executions:manage') && !w.archived;
  const act = (title: string, run: () => Promise<unknown>, opts: { danger?: boolean; body?: ConfirmRequest['body'] } = {}): void =>
    setConfirm({ title, run, confirmLabel: title.replace(/\?$/, ''), ...opts });
  const params = { workflowId: w.workflowId };
  const running = w.status === 'RUNNING';
  const actions: Array<{ label: string; show: boolean; onClick: () => void; danger?: boolean }> = [
    { label: 'Pause', show: running, onClick: () => act('Pause?', () => call('PUT /api/workflow/{workflowId}/pause', { params })) },
    { label: 'Resume', show: w.status === 'PAUSED', onClick: () => act('Resume?', () => call('PUT /api/workflow/{workflowId}/resume', { params })) },
    {
      label: 'Terminate',
      show: running || w.status === 'PAUSED',
      danger: true,
      onClick: () => {
        let reason = '';
        act('Terminate?', () => call('DELETE /api/workflow/{workflowId}', { params, query: { reason } }), {
          danger: true,
          body: (
            <label>
              Reason
              <input autoFocus={false} onChange={(e) => (reason = e.target.value)} data-testid="terminate-reason" />
            </label>
          ),
        });
      },
    },
    {
      label: 'Restart',
      show: TERMINAL.has(w.status),
      onClick: () =>
        act('Restart?', () => call('POST /api/workflow/{workflowId}/restart', { params }), {
          body: <p>Runs the execution again from its first task; its task history is replaced.</p>,
        }),
    },
    {
      label: 'Retry',
      show: w.status === 'FAILED' || w.status === 'TIMED_OUT' || w.status === 'TERMINATED',
      onClick: () => act('Retry?', () => call('POST /api/workflow/{workflowId}/retry', { params }), { body: <p>Retries the last failed task.</p> }),
    },
    {
      label: 'Reset callbacks',
      show: running,
      onClick: () =>
        act('Reset callbacks?', () => call('POST /api/workflow/{workflowId}/resetcallbacks', { params }), {
          body: <p>Tasks waiting for their callback delay become available to workers now.</p>,
        }),
    },
    {
      label: 'Remove',
      show: true,
      danger: true,
      onClick: () =>
        act('Remove?', async () => (await call('DELETE /api/workflow/{workflowId}/remove', { params, query: { archiveWorkflow: false } }), setRemoved(true)), {
          danger: true,
          body: <p>Deletes the execution and its tasks for good.</p>,
        }),
    },
  ];

  return (
    <section>
      <div className="exec-head">
        <div>
          <h1>
            {w.workflowName} <span className="muted">v{w.workflowVersion}</span> <StatusBadge status={w.status} />
            {live && (
              <span className="muted" title="Refreshed every 2 s">
                {' '}
                · live
              </span>
            )}
          </h1>
          <div className="mono muted" data-testid="workflow-id">
            {w.workflowId}
          </div>
        </div>
        {can && (
          <div className="row" data-testid="actions">
            {actions
              .filter((a) => a.show)
              .map((a) => (
                <button key={a.label} type="button" className={a.danger ? 'danger' : ''} onClick={a.onClick}>
                  {a.label}
                </button>
              ))}
          </div>
        )}
      </div>
      <dl className="facts">
        <Fact k="Correlation id" v={w.correlationId} />
        <Fact k="Started" v={time(w.startTime)} />
        <Fact k="Ended" v={time(w.endTime)} />
        <Fact k="Duration" v={w.endTime ? duration(w.endTime - w.startTime) : ''} />
        <Fact k="Priority" v={String(w.priority)} />
        {w.parentWorkflowId && (
          <div>
            <dt>Parent</dt>
            <dd>
              <Link to={`/executions/${enc(w.parentWorkflowId)}`}>{w.parentWorkflowId}</Link>
            </dd>
          </div>
        )}
        {w.reRunFromWorkflowId && <Fact k="Re-run of" v={w.reRunFromWorkflowId} />}
        {Object.keys(w.taskToDomain).length > 0 && <Fact k="Task to domain" v={JSON.stringify(w.taskToDomain)} />}
        {!w.archived && <Fact k="Retention" v={retentionLine(w.workflowDefinition.retention)} />}
      </dl>
      {w.archived && (
        <div className="notice" role="status" data-testid="archived">
          Archived: read from the archive, read-only. It ended {w.status}.
        </div>
      )}
      {w.reasonForIncompletion && (
        <div className="error" data-testid="workflow-reason">
          {w.reasonForIncompletion}
        </div>
      )}
      <ErrorBanner error={wf.error} title="Refresh failed" />
      <div className={`exec-body ${selected || selectedRef ? '' : 'no-side'}`}>
        {graph && (
          <WorkflowDiagram
            graph={graph}
            selected={selected ? nodeIdOfTask(selected) : selectedRef}
            onSelect={(n) => (n.taskId ? selectTask(n.taskId) : n.kind === 'task' && n.ref && !n.dynamic ? select('node', n.ref) : undefined)}
          />
        )}
        {selected && (
          <aside className="side panel" aria-label="Task details">
            <TaskPanel workflow={w} task={selected} tasks={tasks} onClose={() => selectTask(undefined)} onSelect={selectTask} act={can ? act : undefined} />
          </aside>
        )}
        {selectedRef && (
          <aside className="side panel" aria-label="Task not run yet" data-testid="node-panel">
            <div className="row">
              <h2 className="grow">
                {selectedRef} <StatusBadge />
              </h2>
              <button type="button" onClick={() => select('node', undefined)} aria-label="Close">
                ×
              </button>
            </div>
            <p className="muted">This task has not been scheduled in this execution.</p>
            {can && (running || w.status === 'PAUSED') && (
              <button
                type="button"
                onClick={() =>
                  act(
                    'Skip this task?',
                    () =>
                      call('PUT /api/workflow/{workflowId}/skiptask/{taskReferenceName}', { params: { ...params, taskReferenceName: selectedRef }, body: {} }),
                    { body: <p>{selectedRef} will be marked SKIPPED instead of running when the execution reaches it.</p> },
                  )
                }
              >
                Skip task
              </button>
            )}
          </aside>
        )}
      </div>
      <Tabs<Tab>
        tabs={TABS.map(([k, label]) => [k, k === 'tasks' ? `${label} (${tasks.length})` : label])}
        current={tab}
        onChange={(k) => select('tab', k === 'timeline' ? undefined : k)}
      />
      {tab === 'timeline' && <Timeline workflow={w} tasks={tasks} onSelect={selectTask} />}
      {tab === 'tasks' && <TaskTable tasks={tasks} onSelect={selectTask} />}
      {tab === 'io' && (
        <div className="editor-layout">
          <div>
            <h3>Input</h3>
            <Json value={w.input} testId="workflow-input" />
          </div>
          <div>
            <h3>Output</h3>
            <Json value={w.output} testId="workflow-output" />
          </div>
        </div>
      )}
      {tab === 'variables' && <Json value={w.variables} testId="workflow-variables" />}
      {tab === 'json' && <Json value={{ ...w, tasks: undefined, workflowDefinition: w.workflowDefinition }} />}
      <ConfirmDialog
        request={confirm}
        onDone={(ok) => {
          setConfirm(undefined);
          if (ok) {
            setLive(true);
            wf.reload();
          }
        }}
      />
    </section>
  );
}

/** The definition's retention as a line; its absence means the server's default applies (docs/retention.md). */
function retentionLine(r: { days: number; archive: boolean; statuses?: string[] } | undefined): string {
  if (!r) return 'server default';
  if (r.days === 0) return 'kept forever';
  const which = r.statuses ? ` (${r.statuses.join(', ')})` : '';
  return `${r.days} day${r.days === 1 ? '' : 's'} after it ends${which}, then ${r.archive ? 'archived' : 'removed'}`;
}

function Fact({ k, v }: { k: string; v?: string }) {
  if (!v) return null;
  return (
    <div>
      <dt>{k}</dt>
      <dd>{v}</dd>
    </div>
  );
}

function TaskTable({ tasks, onSelect }: { tasks: Task[]; onSelect: (id: string) => void }) {
  return (
    <div className="table-wrap">
      <table data-testid="task-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Reference</th>
            <th>Type</th>
            <th>Status</th>
            <th>Scheduled</th>
            <th>Duration</th>
            <th>Retry</th>
            <th>Worker</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((t) => (
            <tr key={t.taskId}>
              <td>{t.seq}</td>
              <td>
                <button type="button" className="link" onClick={() => onSelect(t.taskId)}>
                  {t.referenceTaskName}
                </button>
              </td>
              <td>{t.taskType}</td>
              <td>
                <StatusBadge status={t.status} />
              </td>
              <td>{time(t.scheduledTime)}</td>
              <td>{t.endTime ? duration(t.endTime - (t.startTime || t.scheduledTime)) : ''}</td>
              <td>{t.retryCount}</td>
              <td>{t.workerId}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One row per task: a thin line while it waited in its queue, a bar while it ran. */
function Timeline({ workflow, tasks, onSelect }: { workflow: Workflow; tasks: Task[]; onSelect: (id: string) => void }) {
  const origin = workflow.startTime || workflow.createTime;
  const end = Math.max(workflow.endTime || 0, workflow.updateTime, ...tasks.map((t) => t.endTime || t.updateTime || t.scheduledTime), origin + 1);
  const span = Math.max(1, end - origin);
  const pct = (ms: number): string => `${Math.min(100, Math.max(0, ((ms - origin) / span) * 100))}%`;
  return (
    <div className="panel">
      <div className="timeline" data-testid="timeline">
        {tasks.map((t) => {
          const started = t.startTime || 0;
          const finished = t.endTime || (OPEN_TASK.has(t.status) ? end : started);
          const runFrom = started || t.scheduledTime;
          return (
            <TimelineRow key={t.taskId} t={t} onSelect={onSelect}>
              {started > t.scheduledTime && (
                <div className="wait" style={{ left: pct(t.scheduledTime), width: `calc(${pct(started)} - ${pct(t.scheduledTime)})` }} />
              )}
              <div className={`bar s-${t.status}`} style={{ left: pct(runFrom), width: `calc(${pct(finished)} - ${pct(runFrom)})` }} />
            </TimelineRow>
          );
        })}
      </div>
      <p className="muted">
        From {time(origin)} to {time(end)} ({duration(end - origin)}). Thin line: scheduled, waiting for a worker; bar: running.
      </p>
    </div>
  );
}

function TimelineRow({ t, onSelect, children }: { t: Task; onSelect: (id: string) => void; children: React.ReactNode }) {
  const title = `${t.referenceTaskName} ${t.status}\nscheduled ${time(t.scheduledTime)}\nstarted ${time(t.startTime)}\nended ${time(t.endTime)}${t.retryCount ? `\nretry ${t.retryCount}` : ''}`;
  return (
    <>
      <button type="button" className="label" onClick={() => onSelect(t.taskId)} title={title}>
        {t.referenceTaskName}
        {t.retryCount ? ` (retry ${t.retryCount})` : ''}
      </button>
      <div className="track" title={title}>
        {children}
      </div>
    </>
  );
}

function TaskPanel({
  workflow,
  task: t,
  tasks,
  onClose,
  onSelect,
  act,
}: {
  workflow: Workflow;
  task: Task;
  tasks: Task[];
  onClose: () => void;
  onSelect: (id: string) => void;
  act?: (title: string, run: () => Promise<unknown>, opts?: { danger?: boolean; body?: ConfirmRequest['body'] }) => void;
}) {
  const logs = useAsync(() => call('GET /api/tasks/{taskId}/log', { params: { taskId: t.taskId } }).catch(() => []), [t.taskId, t.updateTime]);
  const runs = tasks.filter((x) => x.referenceTaskName === t.referenceTaskName);
  const params = { workflowId: workflow.workflowId };
  const rerun = (): void => {
    let text = JSON.stringify(t.inputData, null, 2);
    act?.(
      'Rerun from this task?',
      async () => {
        const parsed = parseJson(text);
        if (!parsed.ok) throw new Error(parsed.message);
        await call('POST /api/workflow/{workflowId}/rerun', {
          params,
          body: { reRunFromWorkflowId: workflow.workflowId, reRunFromTaskId: t.taskId, taskInput: parsed.value, workflowInput: workflow.input },
        });
      },
      {
        body: (
          <>
            <p>Runs the execution again from {t.referenceTaskName}, with this task input:</p>
            <JsonEditor value={text} onChange={(v) => (text = v)} height="200px" label="Task input" testId="rerun-input" />
          </>
        ),
      },
    );
  };

  return (
    <div data-testid="task-panel" data-task={t.referenceTaskName}>
      <div className="row">
        <h2 className="grow">
          {t.referenceTaskName} <StatusBadge status={t.status} />
        </h2>
        <button type="button" onClick={onClose} aria-label="Close task details">
          ×
        </button>
      </div>
      {act && (
        <div className="row">
          {TERMINAL.has(workflow.status) && (
            <button type="button" onClick={rerun}>
              Rerun from here…
            </button>
          )}
          {workflow.status === 'RUNNING' && (t.status === 'SCHEDULED' || t.status === 'IN_PROGRESS') && (
            <button
              type="button"
              onClick={() =>
                act(
                  'Skip this task?',
                  () =>
                    call('PUT /api/workflow/{workflowId}/skiptask/{taskReferenceName}', {
                      params: { ...params, taskReferenceName: t.referenceTaskName },
                      body: {},
                    }),
                  { body: <p>{t.referenceTaskName} will be marked SKIPPED now, taken out of its queue, and the execution goes on without it.</p> },
                )
              }
            >
              Skip task
            </button>
          )}
        </div>
      )}
      {t.subWorkflowId && (
        <p>
          Sub-workflow:{' '}
          <Link to={`/executions/${enc(t.subWorkflowId)}`} data-testid="subworkflow-link">
            {t.subWorkflowId}
          </Link>
        </p>
      )}
      {t.reasonForIncompletion && <div className="error">{t.reasonForIncompletion}</div>}
      <dl className="kv">
        <dt>Task id</dt>
        <dd className="mono">{t.taskId}</dd>
        <dt>Type</dt>
        <dd>{t.taskType}</dd>
        <dt>Scheduled</dt>
        <dd>{time(t.scheduledTime)}</dd>
        <dt>Started</dt>
        <dd>{time(t.startTime)}</dd>
        <dt>Ended</dt>
        <dd>{time(t.endTime)}</dd>
        <dt>Poll count</dt>
        <dd data-testid="poll-count">{t.pollCount}</dd>
        <dt>Worker id</dt>
        <dd>{t.workerId ?? ''}</dd>
        <dt>Retry count</dt>
        <dd>{t.retryCount}</dd>
        {t.domain && (
          <>
            <dt>Domain</dt>
            <dd>{t.domain}</dd>
          </>
        )}
        {t.iteration > 0 && (
          <>
            <dt>Iteration</dt>
            <dd>{t.iteration}</dd>
          </>
        )}
      </dl>
      {runs.length > 1 && (
        <>
          <h3>Runs</h3>
          <ul>
            {runs.map((r) => (
              <li key={r.taskId}>
                <button type="button" className="link" onClick={() => onSelect(r.taskId)} aria-current={r.taskId === t.taskId}>
                  #{r.seq}
                </button>{' '}
                <StatusBadge status={r.status} /> {r.reasonForIncompletion}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Input</h3>
      <Json value={t.inputData} testId="task-input" />
      <h3>Output</h3>
      <Json value={t.outputData} testId="task-output" />
      <h3>Logs</h3>
      {logs.data && logs.data.length > 0 ? (
        <pre data-testid="task-logs">{logs.data.map((l) => `${l.createdTime ? new Date(l.createdTime).toISOString() : ''} ${l.log}`).join('\n')}</pre>
      ) : (
        <p className="muted">No log lines.</p>
      )}
    </div>
  );
}
