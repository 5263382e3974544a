import { useState, type FormEvent } from 'react';
import type { AnswerOf } from '../../../src/api/console-api';
import { call } from '../api/typed';
import { useAsync } from '../api/use-async';
import { ErrorBanner } from '../components/common';
import { CustomRoles } from './custom-roles';

// Users, groups, their roles, memberships and grants, and the custom roles (Orkes' authorization
// API), for admins: add, change and remove each.

type Access = 'CREATE' | 'READ' | 'UPDATE' | 'EXECUTE' | 'DELETE';
const ACCESS: Access[] = ['CREATE', 'READ', 'UPDATE', 'EXECUTE', 'DELETE'];
const TARGET_TYPES = ['WORKFLOW_DEF', 'TASK_DEF', 'WORKFLOW_SCHEDULE', 'SECRET_NAME', 'TAG'];

type Grant = AnswerOf<'GET /api/users/{userId}/permissions'>['grantedAccess'][number];
type RoleView = AnswerOf<'GET /api/roles/custom'>[number];

interface Subject {
  type: 'USER' | 'GROUP';
  id: string;
}
interface Row extends Subject {
  detail: string;
  roles: string[];
  /** The groups a user is in (none for a group). */
  groups: string[];
  grants: Grant[];
}
interface AccessData {
  rows: Row[];
  systemRoles: string[];
  customRoles: RoleView[];
}

async function loadAccess(): Promise<AccessData> {
  const [users, groups, system, customRoles] = await Promise.all([
    call('GET /api/users'),
    call('GET /api/groups'),
    call('GET /api/roles/system'),
    call('GET /api/roles/custom'),
  ]);
  const rows = await Promise.all([
    ...users.map(async (u): Promise<Row> => ({
      type: 'USER',
      id: u.id,
      detail: u.name,
      roles: u.roles.map((r) => r.name),
      groups: u.groups.map((g) => g.id),
      grants: (await call('GET /api/users/{userId}/permissions', { params: { userId: u.id } })).grantedAccess,
    })),
    ...groups.map(async (g): Promise<Row> => ({
      type: 'GROUP',
      id: g.id,
      detail: g.description,
      roles: g.roles.map((r) => r.name),
      groups: [],
      grants: (await call('GET /api/groups/{groupId}/permissions', { params: { groupId: g.id } })).grantedAccess,
    })),
  ]);
  return { rows, systemRoles: Object.keys(system), customRoles };
}

const key = (s: Subject): string => `${s.type}:${s.id}`;
const upsert = (s: Subject, body: { name?: string; description?: string; roles?: string[] }) =>
  s.type === 'USER' ? call('PUT /api/users/{id}', { params: { id: s.id }, body }) : call('PUT /api/groups/{id}', { params: { id: s.id }, body });
const remove = (s: Subject) =>
  s.type === 'USER' ? call('DELETE /api/users/{id}', { params: { id: s.id } }) : call('DELETE /api/groups/{id}', { params: { id: s.id } });

export function AccessView() {
  const data = useAsync(loadAccess, []);
  const rows = data.data?.rows ?? [];
  const [error, setError] = useState<unknown>();
  const run = async (f: () => Promise<unknown>): Promise<void> => {
    setError(undefined);
    try {
      await f();
      data.reload();
    } catch (e) {
      setError(e);
    }
  };
  const revoke = (s: Subject, g: Grant) => run(() => call('DELETE /api/auth/authorization', { body: { subject: s, target: g.target, access: g.access } }));
  const leave = (userId: string, groupId: string) => run(() => call('DELETE /api/groups/{groupId}/users/{userId}', { params: { groupId, userId } }));

  const [subject, setSubject] = useState<Subject>({ type: 'USER', id: '' });
  const [name, setName] = useState('');
  const addSubject = (e: FormEvent): void => {
    e.preventDefault();
    void run(() => upsert(subject, subject.type === 'USER' ? { name: name || subject.id } : { description: name }));
  };

  const [member, setMember] = useState({ userId: '', groupId: '' });
  const addMember = (e: FormEvent): void => {
    e.preventDefault();
    void run(() => call('POST /api/groups/{groupId}/users/{userId}', { params: member }));
  };

  const [holder, setHolder] = useState<{ key: string; roles: string[] }>({ key: '', roles: [] });
  const pickHolder = (k: string): void => setHolder({ key: k, roles: rows.find((r) => key(r) === k)?.roles ?? [] });
  const setRoles = (e: FormEvent): void => {
    e.preventDefault();
    const row = rows.find((r) => key(r) === holder.key);
    if (row) void run(() => upsert(row, { roles: holder.roles }));
  };
  const roleNames = [...(data.data?.systemRoles ?? []), ...(data.data?.customRoles ?? []).map((r) => r.name)];

  const [grant, setGrant] = useState({ subjectType: 'USER', subjectId: '', targetType: 'WORKFLOW_DEF', targetId: '', access: ['READ'] as Access[] });
  const addGrant = (e: FormEvent): void => {
    e.preventDefault();
    void run(() =>
      call('POST /api/auth/authorization', {
        body: { subject: { type: grant.subjectType, id: grant.subjectId }, target: { type: grant.targetType, id: grant.targetId }, access: grant.access },
      }),
    );
  };

  return (
    <section>
      <h1>Users, groups and grants</h1>
      <p className="muted">A key acts as the user app:&lt;application id&gt;. A definition nobody holds a grant on stays open to every role that may use it.</p>
      <ErrorBanner error={error ?? data.error} />
      <div className="table-wrap">
        <table data-testid="subjects">
          <thead>
            <tr>
              <th>Kind</th>
              <th>Id</th>
              <th>Name</th>
              <th>Roles</th>
              <th>Groups</th>
              <th>Grants</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={key(r)} data-testid="subject-row" data-subject={key(r)}>
                <td>{r.type === 'USER' ? 'user' : 'group'}</td>
                <td>
                  <code>{r.id}</code>
                </td>
                <td>{r.detail}</td>
                <td className="wrap" data-testid="roles">
                  {r.roles.join(', ')}
                </td>
                <td className="wrap">
                  {r.groups.map((g) => (
                    <div key={g} data-testid="membership">
                      <code>{g}</code>{' '}
                      <button type="button" onClick={() => void leave(r.id, g)} aria-label={`Remove ${r.id} from ${g}`}>
                        Remove
                      </button>
                    </div>
                  ))}
                </td>
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
                  <button type="button" className="danger" onClick={() => void run(() => remove(r))} aria-label={`Delete ${r.id}`}>
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

      <h2>Add a user to a group</h2>
      <form onSubmit={addMember} data-testid="add-member" className="inline-form">
        <select aria-label="User" required value={member.userId} onChange={(e) => setMember({ ...member, userId: e.target.value })}>
          <option value="">user…</option>
          {rows
            .filter((r) => r.type === 'USER')
            .map((r) => (
              <option key={r.id}>{r.id}</option>
            ))}
        </select>
        <select aria-label="Group" required value={member.groupId} onChange={(e) => setMember({ ...member, groupId: e.target.value })}>
          <option value="">group…</option>
          {rows
            .filter((r) => r.type === 'GROUP')
            .map((r) => (
              <option key={r.id}>{r.id}</option>
            ))}
        </select>
        <button type="submit">Add to group</button>
      </form>

      <h2>Set roles</h2>
      <form onSubmit={setRoles} data-testid="set-roles" className="inline-form">
        <select aria-label="Holder" required value={holder.key} onChange={(e) => pickHolder(e.target.value)}>
          <option value="">user or group…</option>
          {rows.map((r) => (
            <option key={key(r)} value={key(r)}>
              {r.type === 'USER' ? 'user' : 'group'} {r.id}
            </option>
          ))}
        </select>
        {roleNames.map((role) => (
          <label key={role} className="inline">
            <input
              type="checkbox"
              checked={holder.roles.includes(role)}
              onChange={(e) => setHolder({ ...holder, roles: e.target.checked ? [...holder.roles, role] : holder.roles.filter((x) => x !== role) })}
            />{' '}
            {role}
          </label>
        ))}
        <button type="submit">Set roles</button>
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
          <label key={a} className="inline">
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

      <CustomRoles roles={data.data?.customRoles ?? []} run={run} />
    </section>
  );
}
