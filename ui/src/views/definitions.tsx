import { useEffect, useMemo, useState } from 'react';
import type { TaskDef, WorkflowDef } from '../../../src/model/definitions';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ConfirmDialog, ErrorBanner, Tabs, time, type ConfirmRequest } from '../components/common';
import { JsonEditor, parseJson } from '../components/json-editor';
import { WorkflowDiagram } from '../graph/workflow-diagram';
import { workflowGraph, type WorkflowGraph } from '../graph/workflow-graph';
import { Link, enc, useLocation, useNavigate } from '../router';

export function DefinitionsView() {
  const { search } = useLocation();
  const navigate = useNavigate();
  const kind = search.get('kind') === 'task' ? 'task' : 'workflow';
  return (
    <section>
      <div className="row">
        <h1 className="grow">Definitions</h1>
        <Link className="button" to={kind === 'task' ? '/definitions/task/new' : '/definitions/workflow/new'}>
          New {kind} definition
        </Link>
      </div>
      <Tabs
        tabs={[
          ['workflow', 'Workflows'],
          ['task', 'Tasks'],
        ]}
        current={kind}
        onChange={(k) => navigate(k === 'task' ? '/definitions?kind=task' : '/definitions')}
      />
      {kind === 'workflow' ? <WorkflowDefList /> : <TaskDefList />}
    </section>
  );
}

function WorkflowDefList() {
  const defs = useAsync(() => call('GET /api/metadata/workflowdef'), []);
  const session = useSession();
  const byName = useMemo(() => {
    const m = new Map<string, WorkflowDef[]>();
    for (const d of defs.data ?? [])
      m.set(
        d.name,
        [...(m.get(d.name) ?? []), d].sort((a, b) => b.version - a.version),
      );
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [defs.data]);
  return (
    <>
      <ErrorBanner error={defs.error} />
      <div className="table-wrap">
        <table data-testid="workflow-defs">
          <thead>
            <tr>
              <th>Name</th>
              <th>Versions</th>
              <th>Description</th>
              <th>Tasks</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {byName.map(([name, versions]) => {
              const latest = versions[0]!;
              return (
                <tr key={name}>
                  <td>
                    <Link to={`/definitions/workflow/${enc(name)}?version=${latest.version}`}>{name}</Link>
                  </td>
                  <td>
                    {versions.map((v) => (
                      <Link key={v.version} to={`/definitions/workflow/${enc(name)}?version=${v.version}`} style={{ marginRight: 6 }}>
                        v{v.version}
                      </Link>
                    ))}
                  </td>
                  <td className="wrap">{latest.description}</td>
                  <td>{latest.tasks.length}</td>
                  <td>{time(latest.updateTime || latest.createTime)}</td>
                  <td>
                    {session.can('executions:start') && (
                      <Link className="button" to={`/start?name=${enc(name)}&version=${latest.version}`}>
                        Start
                      </Link>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function TaskDefList() {
  const defs = useAsync(() => call('GET /api/metadata/taskdef'), []);
  return (
    <>
      <ErrorBanner error={defs.error} />
      <div className="table-wrap">
        <table data-testid="task-defs">
          <thead>
            <tr>
              <th>Name</th>
              <th>Retries</th>
              <th>Retry logic</th>
              <th>Timeout (s)</th>
              <th>Response timeout (s)</th>
              <th>Owner</th>
            </tr>
          </thead>
          <tbody>
            {[...(defs.data ?? [])]
              .sort((a, b) => a.name.localeCompare(b.name))
              .map((d) => (
                <tr key={d.name}>
                  <td>
                    <Link to={`/definitions/task/${enc(d.name)}`}>{d.name}</Link>
                  </td>
                  <td>{d.retryCount}</td>
                  <td>{d.retryLogic}</td>
                  <td>{d.timeoutSeconds}</td>
                  <td>{d.responseTimeoutSeconds}</td>
                  <td>{d.ownerEmail}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

const NEW_WORKFLOW = {
  name: 'new_workflow',
  description: 'Describe what it does',
  version: 1,
  tasks: [{ name: 'first_task', taskReferenceName: 'first', type: 'SIMPLE', inputParameters: { value: '${workflow.input.value}' } }],
  inputParameters: ['value'],
  outputParameters: { result: '${first.output}' },
  schemaVersion: 2,
  ownerEmail: 'someone@example.com',
};

const NEW_TASK = {
  name: 'new_task',
  retryCount: 3,
  retryLogic: 'FIXED',
  retryDelaySeconds: 10,
  timeoutSeconds: 300,
  timeoutPolicy: 'TIME_OUT_WF',
  responseTimeoutSeconds: 60,
  ownerEmail: 'someone@example.com',
};

/** Edit a workflow definition as JSON, the diagram following the text; the server validates and saves. */
export function WorkflowDefEditor({ name }: { name?: string }) {
  const { search } = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const version = search.get('version') ?? undefined;
  const loaded = useAsync(
    async () => (name ? call('GET /api/metadata/workflowdef/{name}', { params: { name }, query: { version } }) : NEW_WORKFLOW),
    [name, version],
  );
  const [text, setText] = useState('');
  useEffect(() => {
    if (loaded.data) setText(JSON.stringify(loaded.data, null, 2));
  }, [loaded.data]);
  const [error, setError] = useState<unknown>();
  // A first save moves to the definition's own URL (a new view): `saved` there carries the message.
  const [saved, setSaved] = useState<string | undefined>(search.has('saved') ? 'Saved.' : undefined);
  const [confirm, setConfirm] = useState<ConfirmRequest>();

  // The preview keeps the last text that parsed into something with tasks.
  const [graph, setGraph] = useState<WorkflowGraph>();
  useEffect(() => {
    const p = parseJson(text);
    if (!p.ok) return;
    const tasks = (p.value as { tasks?: unknown })?.tasks;
    if (!Array.isArray(tasks)) return;
    try {
      setGraph(workflowGraph(tasks as WorkflowDef['tasks']));
    } catch {
      // A half-typed task list: keep the previous diagram.
    }
  }, [text]);

  const send = async (validateOnly: boolean): Promise<void> => {
    setError(undefined);
    setSaved(undefined);
    const p = parseJson(text);
    if (!p.ok) return setError(new Error(p.message));
    try {
      if (validateOnly) await call('POST /api/metadata/workflowdef/validate', { body: p.value });
      // PUT registers or replaces, as Conductor's update.
      else await call('PUT /api/metadata/workflowdef', { body: [p.value] });
      setSaved(validateOnly ? 'The server accepts this definition.' : 'Saved.');
      const def = p.value as WorkflowDef;
      if (!validateOnly && (def.name !== name || String(def.version) !== version))
        navigate(`/definitions/workflow/${enc(def.name)}?version=${def.version}&saved`, true);
    } catch (e) {
      setError(e);
    }
  };
  const def = loaded.data as WorkflowDef | undefined;
  return (
    <section>
      <div className="row">
        <h1 className="grow">
          {name ? `${name}` : 'New workflow definition'} {version && <span className="muted">v{version}</span>}
        </h1>
        <button type="button" onClick={() => void send(true)} data-testid="validate">
          Validate
        </button>
        {session.can('definitions:write') && (
          <button type="button" className="primary" onClick={() => void send(false)} data-testid="save">
            Save
          </button>
        )}
        {name && session.can('executions:start') && (
          <Link className="button" to={`/start?name=${enc(name)}${version ? `&version=${version}` : ''}`}>
            Start…
          </Link>
        )}
        {name && def && session.can('definitions:write') && (
          <button
            type="button"
            className="danger"
            onClick={() =>
              setConfirm({
                title: `Delete ${name} v${def.version}?`,
                danger: true,
                confirmLabel: 'Delete',
                run: () => call('DELETE /api/metadata/workflowdef/{name}/{version}', { params: { name, version: def.version } }),
              })
            }
          >
            Delete
          </button>
        )}
      </div>
      <ErrorBanner error={loaded.error} />
      <div className="editor-layout">
        <div>
          <JsonEditor value={text} onChange={setText} height="620px" label="Workflow definition JSON" testId="definition-editor" problem={error} />
          <ErrorBanner error={error} title="Not saved" />
          {saved && (
            <div className="notice" role="status" data-testid="saved">
              {saved}
            </div>
          )}
        </div>
        <div className="preview">{graph && <WorkflowDiagram graph={graph} testId="preview" />}</div>
      </div>
      <ConfirmDialog
        request={confirm}
        onDone={(ok) => {
          setConfirm(undefined);
          if (ok) navigate('/definitions');
        }}
      />
    </section>
  );
}

export function TaskDefEditor({ name }: { name?: string }) {
  const { search } = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const loaded = useAsync(async () => (name ? call('GET /api/metadata/taskdef/{name}', { params: { name } }) : NEW_TASK), [name]);
  const [text, setText] = useState('');
  useEffect(() => {
    if (loaded.data) setText(JSON.stringify(loaded.data, null, 2));
  }, [loaded.data]);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(search.has('saved'));
  const save = async (): Promise<void> => {
    setError(undefined);
    setSaved(false);
    const p = parseJson(text);
    if (!p.ok) return setError(new Error(p.message));
    try {
      await call('PUT /api/metadata/taskdef', { body: p.value });
      setSaved(true);
      const n = (p.value as TaskDef).name;
      if (n !== name) navigate(`/definitions/task/${enc(n)}?saved`, true);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section>
      <div className="row">
        <h1 className="grow">{name ?? 'New task definition'}</h1>
        {session.can('definitions:write') && (
          <button type="button" className="primary" onClick={() => void save()} data-testid="save">
            Save
          </button>
        )}
      </div>
      <ErrorBanner error={loaded.error} />
      <JsonEditor value={text} onChange={setText} height="480px" label="Task definition JSON" testId="definition-editor" problem={error} />
      <ErrorBanner error={error} title="Not saved" />
      {saved && (
        <div className="notice" role="status" data-testid="saved">
          Saved.
        </div>
      )}
    </section>
  );
}
