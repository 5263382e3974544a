import { useEffect, useState } from 'react';
import type { EventHandler } from '../../../src/model/events';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ConfirmDialog, ErrorBanner, type ConfirmRequest } from '../components/common';
import { JsonEditor, parseJson } from '../components/json-editor';
import { Link, enc, useNavigate } from '../router';

export function EventHandlersView() {
  const session = useSession();
  const handlers = useAsync(() => call('GET /api/event'), []);
  const [error, setError] = useState<unknown>();
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const toggle = async (h: EventHandler): Promise<void> => {
    setError(undefined);
    try {
      await call('PUT /api/event', { body: { ...h, active: !h.active } });
      handlers.reload();
    } catch (e) {
      setError(e);
    }
  };
  const canWrite = session.can('definitions:write');
  return (
    <section>
      <div className="row">
        <h1 className="grow">Event handlers</h1>
        {canWrite && (
          <Link className="button" to="/events/new">
            New event handler
          </Link>
        )}
      </div>
      <ErrorBanner error={handlers.error ?? error} />
      <div className="table-wrap">
        <table data-testid="event-handlers">
          <thead>
            <tr>
              <th>Name</th>
              <th>Event</th>
              <th>Condition</th>
              <th>Actions</th>
              <th>Active</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(handlers.data ?? []).map((h) => (
              <tr key={h.name} data-testid="handler-row" data-name={h.name}>
                <td>
                  <Link to={`/events/${enc(h.name)}`}>{h.name}</Link>
                </td>
                <td className="mono">{h.event}</td>
                <td className="mono wrap">{h.condition}</td>
                <td>{h.actions.map((a) => a.action).join(', ')}</td>
                <td>
                  <label className="inline">
                    <input
                      type="checkbox"
                      checked={h.active}
                      disabled={!canWrite}
                      onChange={() => void toggle(h)}
                      data-testid="handler-active"
                      data-active={String(h.active)}
                      aria-label={`${h.name} active`}
                    />
                    {h.active ? 'on' : 'off'}
                  </label>
                </td>
                <td>
                  {canWrite && (
                    <button
                      type="button"
                      className="danger"
                      onClick={() =>
                        setConfirm({
                          title: `Delete ${h.name}?`,
                          danger: true,
                          confirmLabel: 'Delete',
                          run: () => call('DELETE /api/event/{name}', { params: { name: h.name } }),
                        })
                      }
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {handlers.data?.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No event handler.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        request={confirm}
        onDone={(ok) => {
          setConfirm(undefined);
          if (ok) handlers.reload();
        }}
      />
    </section>
  );
}

const NEW_HANDLER = {
  name: 'new_handler',
  event: 'conductor:some_workflow:some_task',
  condition: 'true',
  evaluatorType: 'javascript',
  actions: [{ action: 'complete_task', complete_task: { workflowId: '${workflowId}', taskRefName: 'wait_ref', output: {} } }],
  active: false,
};

export function EventHandlerEditor({ name }: { name?: string }) {
  const navigate = useNavigate();
  const session = useSession();
  const loaded = useAsync(async () => {
    if (!name) return NEW_HANDLER;
    const all = await call('GET /api/event');
    const h = all.find((x) => x.name === name);
    if (!h) throw new Error(`No event handler named ${name}`);
    return h;
  }, [name]);
  const [text, setText] = useState('');
  useEffect(() => {
    if (loaded.data) setText(JSON.stringify(loaded.data, null, 2));
  }, [loaded.data]);
  const [error, setError] = useState<unknown>();
  const save = async (): Promise<void> => {
    setError(undefined);
    const p = parseJson(text);
    if (!p.ok) return setError(new Error(p.message));
    try {
      await call(name ? 'PUT /api/event' : 'POST /api/event', { body: p.value });
      navigate('/events');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section>
      <div className="row">
        <h1 className="grow">{name ?? 'New event handler'}</h1>
        {session.can('definitions:write') && (
          <button type="button" className="primary" onClick={() => void save()} data-testid="save">
            Save
          </button>
        )}
      </div>
      <ErrorBanner error={loaded.error} />
      <JsonEditor value={text} onChange={setText} height="480px" label="Event handler JSON" testId="definition-editor" problem={error} />
      <ErrorBanner error={error} title="Not saved" />
    </section>
  );
}
