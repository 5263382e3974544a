import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useAsync } from '../api/use-async';
import { ErrorBanner } from '../components/common';

// Users, groups and their grants (Orkes' authorization API), for admins: add and remove each.

type Access = 'CREATE' | 'READ' | 'UPDATE' | 'EXECUTE' | 'DELETE';
const ACCESS: Access[] = ['CREATE', 'READ', 'UPDATE', 'EXECUTE', 'DELETE'];
const TARGET_TYPES = ['WORKFLOW_DEF', 'TASK_DEF', 'WORKFLOW_SCHEDULE', 'SECRET_NAME', 'TAG'];

interface Subject {
  type: 'USER' | 'GROUP';
  id: string;
}
interface Grant {
  target: { type: string; id: string };
  access: Access[];
}
interface Row extends Subject {
  detail: string;
  grants: Grant[];
}

async function loadRows(): Promise<Row[]> {
  const [users, groups] = await Promise.all([
    api<Array<{ id: string; name: string; groups: Array<{ id: string }> }>>('GET', '/api/users'),
    api<Array<{ id: string; description: string }>>('GET', '/api/groups'),
  ]);
  const granted = (path: string) => api<{ grantedAccess: Grant[] }>('GET', path).then((r) => r.grantedAccess);
  return Promise.all([
    ...users.map(async (u): Promise<Row> => ({
      type: 'USER',
      id: u.id,
      detail: [u.name, ...u.groups.map((g) => `group ${g.id}`)].join(', '),
      grants: await granted(`/api/users/${encodeURIComponent(u.id)}/permissions`),
    })),
    ...groups.map(async (g): Promise<Row> => ({
      type: 'GROUP',
      id: g.id,
      detail: g.description,
      grants: await granted(`/api/groups/${encodeURIComponent(g.id)}/permissions`),
    })),
  ]);
}

export function AccessView() {
  const rows = useAsync(loadRows, []);
  const [error, setError] = useState<unknown>();
  const run = async (f: () => Promise<unknown>): Promise<void> => {
    setError(undefined);
    try {
      await f();
      rows.reload();
    } catch (e) {
      setError(e);
    }
  };
  const path = (s: Subject): string => `/api/${s.type === 'USER' ? 'users' : 'groups'}/${encodeURIComponent(s.id)}`;
  const revoke = (s: Subject, g: Grant) => run(() => api('DELETE', '/api/auth/authorization', { subject: s, target: g.target, access: g.access }));

  const [subject, setSubject] = useState<Subject>({ type: 'USER', id: '' });
  const [name, setName] = useState('');
  const addSubject = (e: FormEvent): void => {
    e.preventDefault();
    void run(() => api('PUT', path(subject), subject.type === 'USER' ? { name: name || subject.id } : { description: name }));
  };
  const [grant, setGrant] = useState({ subjectType: 'USER', subjectId: '', targetType: 'WORKFLOW_DEF', targetId: '', access: ['READ'] as Access[] });
  const addGrant = (e: FormEvent): void => {
    e.preventDefault();
    void run(() =>
      api('POST', '/api/auth/authorization', {
        subject: { type: grant.subjectType, id: grant.subjectId },
        target: { type: grant.targetType, id: grant.targetId },
        access: grant.access,
      }),
    );
  };

  return (
    <section>
      <h1>Users, groups and grants</h1>
      <p className="muted">A key acts as the user app:&lt;application id&gt;. A definition nobody holds a grant on stays open to every role that may use it.</p>
      <ErrorBanner error={error ?? rows.error} />
      <div className="table-wrap">
        <table data-testid="subjects">
          <thead>
            <tr>
              <th>Kind</th>
              <th>Id</th>
              <th>Name, groups</th>
              <th>Grants</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(rows.data ?? []).map((r) => (
              <tr key={`${r.type}:${r.id}`} data-testid="subject-row" data-subject={`${r.type}:${r.id}`}>
                <td>{r.type === 'USER' ? 'user' : 'group'}</td>
                <td>
                  <code>{r.id}</code>
                </td>
                <td>{r.detail}</td>
                <td className="wrap">
                  {r.grants.map((g) => (
                    <div key={`${g.target.type}:${g.target.id}`} data-testid="grant">
                      {g.access.join(', ')} on {g.target.type} <code>{g.target.id}</code>{' '}
                      <button type="button" onClick={() => void revoke(r, g)} aria-label={`Revoke ${g.target.type} ${g.target.id} from ${r.id}`}>
                        Revoke
                      </button>
                    </div>
                  ))}
                </td>
                <td>
                  <button type="button" className="danger" onClick={() => void run(() => api('DELETE', path(r)))} aria-label={`Delete ${r.id}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Add a user or group</h2>
      <form onSubmit={addSubject} data-testid="add-subject" className="inline-form">
        <select aria-label="Kind" value={subject.type} onChange={(e) => setSubject({ ...subject, type: e.target.value as Subject['type'] })}>
          <option value="USER">user</option>
          <option value="GROUP">group</option>
        </select>
        <input aria-label="Id" required value={subject.id} onChange={(e) => setSubject({ ...subject, id: e.target.value })} />
        <input aria-label="Name or description" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit">Save</button>
      </form>

      <h2>Grant access</h2>
      <form onSubmit={addGrant} data-testid="add-grant" className="inline-form">
        <select aria-label="Subject kind" value={grant.subjectType} onChange={(e) => setGrant({ ...grant, subjectType: e.target.value })}>
          <option value="USER">user</option>
          <option value="GROUP">group</option>
          <option value="ROLE">role</option>
        </select>
        <input aria-label="Subject id" required value={grant.subjectId} onChange={(e) => setGrant({ ...grant, subjectId: e.target.value })} />
        <select aria-label="Target type" value={grant.targetType} onChange={(e) => setGrant({ ...grant, targetType: e.target.value })}>
          {TARGET_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <input aria-label="Target id" required value={grant.targetId} onChange={(e) => setGrant({ ...grant, targetId: e.target.value })} />
        {ACCESS.map((a) => (
          <label key={a}>
            <input
              type="checkbox"
              checked={grant.access.includes(a)}
              onChange={(e) => setGrant({ ...grant, access: e.target.checked ? [...grant.access, a] : grant.access.filter((x) => x !== a) })}
            />{' '}
            {a}
          </label>
        ))}
        <button type="submit">Grant</button>
      </form>
    </section>
  );
}
