import { useState, type FormEvent } from 'react';
import type { AnswerOf } from '../../../src/api/console-api';
import { call } from '../api/typed';
import { useAsync } from '../api/use-async';
import { ErrorBanner } from '../components/common';

// The access page's custom roles: listed with their permissions, created from the permissions the
// server offers (by resource type), deleted (which takes them from their holders).

type RoleView = AnswerOf<'GET /api/roles/custom'>[number];

export function CustomRoles({ roles, run }: { roles: RoleView[]; run: (f: () => Promise<unknown>) => Promise<void> }) {
  const offered = useAsync(() => call('GET /api/roles/permissions'), []);
  const [draft, setDraft] = useState<{ name: string; permissions: string[] }>({ name: '', permissions: [] });
  const toggle = (p: string, on: boolean): void =>
    setDraft({ ...draft, permissions: on ? [...draft.permissions, p] : draft.permissions.filter((x) => x !== p) });
  const create = (e: FormEvent): void => {
    e.preventDefault();
    void run(() => call('POST /api/roles', { body: draft }));
  };

  return (
    <>
      <h2>Custom roles</h2>
      <div className="table-wrap">
        <table data-testid="custom-roles">
          <thead>
            <tr>
              <th>Name</th>
              <th>Permissions</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {roles.map((r) => (
              <tr key={r.name} data-testid="custom-role" data-role={r.name}>
                <td>
                  <code>{r.name}</code>
                </td>
                <td className="wrap" data-testid="permissions">
                  {r.permissions.map((p) => p.name).join(', ')}
                </td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => void run(() => call('DELETE /api/roles/{name}', { params: { name: r.name } }))}
                    aria-label={`Delete role ${r.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Create a custom role</h2>
      <ErrorBanner error={offered.error} />
      <form onSubmit={create} data-testid="add-role" className="inline-form">
        <input aria-label="Role name" required value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
        {Object.entries(offered.data ?? {}).map(([type, permissions]) => (
          <fieldset key={type}>
            <legend>{type}</legend>
            {permissions.map((p) => (
              <label key={p} className="inline">
                <input type="checkbox" aria-label={p} checked={draft.permissions.includes(p)} onChange={(e) => toggle(p, e.target.checked)} />
                {p.slice(0, p.length - type.length - 1)}
              </label>
            ))}
          </fieldset>
        ))}
        <button type="submit">Create role</button>
      </form>
    </>
  );
}
