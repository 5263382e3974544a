import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { WorkflowStatus } from '../../../src/model/statuses';
import type { ConsoleRoute } from '../../../src/api/console-api';
import type { Query } from '../api/client';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ConfirmDialog, ErrorBanner, StatusBadge, duration, time, type ConfirmRequest } from '../components/common';
import {
  countParams,
  filtersFromParams,
  pageCount,
  paramsFromFilters,
  searchParams,
  PAGE_SIZES,
  WORKFLOW_STATUSES,
  type ExecutionFilters,
  type SortField,
} from '../model/execution-search';
import { Link, enc, useLocation, useNavigate } from '../router';
import type { BatchAction } from '../../../src/model/batch';
import { BATCH_ACTIONS } from '../model/batch-actions';

const parseLocal = (s: string): number | undefined => {
  const t = new Date(s).getTime();
  return Number.isNaN(t) ? undefined : t;
};

interface BulkResponse {
  bulkSuccessfulResults: string[];
  bulkErrorResults: Record<string, string>;
}

// Remove deletes for good (archiveWorkflow=false: out of the store and the search index).
type BulkOp = { label: string; route: ConsoleRoute & `${string} /api/workflow/bulk/${string}`; query?: Query; danger?: boolean };
const BULK: BulkOp[] = [
  { label: 'Pause', route: 'PUT /api/workflow/bulk/pause' },
  { label: 'Resume', route: 'PUT /api/workflow/bulk/resume' },
  { label: 'Retry', route: 'POST /api/workflow/bulk/retry' },
  { label: 'Restart', route: 'POST /api/workflow/bulk/restart' },
  { label: 'Terminate', route: 'POST /api/workflow/bulk/terminate', danger: true },
  { label: 'Remove', route: 'DELETE /api/workflow/bulk/remove', query: { archiveWorkflow: false }, danger: true },
];

const COLUMNS: Array<[SortField | undefined, string]> = [
  ['workflowType', 'Workflow'],
  [undefined, 'Execution id'],
  ['status', 'Status'],
  ['correlationId', 'Correlation id'],
  ['startTime', 'Started'],
  ['endTime', 'Ended'],
  ['executionTime', 'Duration'],
];

export function ExecutionsView() {
  const { search } = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const filters = useMemo(() => filtersFromParams(search), [search]);
  const key = paramsFromFilters(filters).toString();
  const go = (f: ExecutionFilters): void => {
    const q = paramsFromFilters(f).toString();
    navigate(`/executions${q ? `?${q}` : ''}`);
  };

  const results = useAsync(() => call('GET /api/workflow/search', { query: { ...searchParams(filters, parseLocal) } }), [key]);
  const counts = useAsync(async () => {
    const out = await Promise.all(
      WORKFLOW_STATUSES.map((s) =>
        call('GET /api/workflow/search', { query: { ...countParams(filters, s, parseLocal) } }).then((r) => [s, r.totalHits] as const),
      ),
    );
    return new Map<WorkflowStatus, number>(out);
  }, [key]);
  const names = useAsync(() => call('GET /api/metadata/workflowdef/names').catch(() => [] as string[]), []);

  const [selected, setSelected] = useState<Set<string>>(new Set());
  useEffect(() => setSelected(new Set()), [key]);
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const [bulkResult, setBulkResult] = useState<{ op: string; r: BulkResponse }>();
  const [batchAction, setBatchAction] = useState<BatchAction>('terminate');

  const rows = results.data?.results ?? [];
  const total = results.data?.totalHits ?? 0;
  const allChecked = rows.length > 0 && rows.every((r) => selected.has(r.workflowId));
  const toggle = (id: string): void => {
    const s = new Set(selected);
    if (s.has(id)) s.delete(id);
    else s.add(id);
    setSelected(s);
  };

  const bulk = (op: BulkOp): void => {
    const ids = [...selected];
    setConfirm({
      title: `${op.label} ${ids.length} execution${ids.length === 1 ? '' : 's'}?`,
      body: (
        <p className="muted">
          {ids.slice(0, 5).join(', ')}
          {ids.length > 5 ? ', …' : ''}
        </p>
      ),
      confirmLabel: op.label,
      danger: op.danger,
      run: async () => {
        const r = await call(op.route, { body: ids, query: op.query });
        setBulkResult({ op: op.label, r });
      },
    });
  };

  // A batch by query: the same search, acted on server-side over every match (not just this page).
  const actOnAll = (): void => {
    const label = BATCH_ACTIONS.find(([a]) => a === batchAction)![1];
    const { query, freeText } = searchParams(filters, parseLocal);
    setConfirm({
      title: `${label} all ${total} matching execution${total === 1 ? '' : 's'}?`,
      body: (
        <p className="muted">
          A batch acts on every execution this search matches when it starts, a few per second; its page shows the progress.
          <br />
          <code>{query || '(any)'}</code> · free text <code>{freeText}</code>
        </p>
      ),
      confirmLabel: `${label} ${total}`,
      danger: batchAction === 'terminate' || batchAction === 'remove',
      run: async () => {
        const r = await call('POST /api/batch', { body: { query, freeText, action: batchAction } });
        navigate(`/batches/${enc(r.id)}`);
      },
    });
  };

  return (
    <section>
      <h1>Executions</h1>
      <FilterForm filters={filters} names={names.data ?? []} onSearch={go} />
      <div className="counts" aria-label="Executions by status">
        {WORKFLOW_STATUSES.map((s) => {
          const on = filters.statuses.includes(s);
          return (
            <button
              key={s}
              type="button"
              className="count"
              aria-pressed={on}
              data-testid={`count-${s}`}
              onClick={() => go({ ...filters, page: 0, statuses: on ? filters.statuses.filter((x) => x !== s) : [...filters.statuses, s] })}
            >
              <StatusBadge status={s} /> <b>{counts.data?.get(s) ?? '…'}</b>
            </button>
          );
        })}
      </div>
      <ErrorBanner error={results.error} title="Search failed" />
      {session.can('executions:manage') && selected.size > 0 && (
        <div className="bulkbar" data-testid="bulkbar">
          <span>{selected.size} selected</span>
          {BULK.map((op) => (
            <button key={op.route} type="button" className={op.danger ? 'danger' : ''} onClick={() => bulk(op)}>
              {op.label}
            </button>
          ))}
        </div>
      )}
      {session.can('executions:manage') && total > 0 && (
        <div className="bulkbar" data-testid="batchbar">
          <span>All {total} matches:</span>
          <select aria-label="Action on all matches" value={batchAction} onChange={(e) => setBatchAction(e.target.value as BatchAction)}>
            {BATCH_ACTIONS.map(([a, label]) => (
              <option key={a} value={a}>
                {label}
              </option>
            ))}
          </select>
          <button type="button" onClick={actOnAll}>
            Act on all {total} matches…
          </button>
        </div>
      )}
      {bulkResult && (
        <div className="notice" role="status" data-testid="bulk-result">
          {bulkResult.op}: {bulkResult.r.bulkSuccessfulResults.length} done
          {Object.keys(bulkResult.r.bulkErrorResults).length > 0 && (
            <>
              , {Object.keys(bulkResult.r.bulkErrorResults).length} refused:
              <ul>
                {Object.entries(bulkResult.r.bulkErrorResults).map(([id, m]) => (
                  <li key={id}>
                    <code>{id}</code>: {m}
                  </li>
                ))}
              </ul>
            </>
          )}
          <button type="button" onClick={() => setBulkResult(undefined)} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      <div className="table-wrap">
        <table data-testid="executions">
          <thead>
            <tr>
              <th>
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allChecked}
                  onChange={() => setSelected(allChecked ? new Set() : new Set(rows.map((r) => r.workflowId)))}
                  disabled={!session.can('executions:manage')}
                />
              </th>
              {COLUMNS.map(([field, label]) => (
                <th key={label} aria-sort={field && filters.sort.field === field ? (filters.sort.order === 'ASC' ? 'ascending' : 'descending') : undefined}>
                  {field ? (
                    <button
                      type="button"
                      onClick={() =>
                        go({ ...filters, page: 0, sort: { field, order: filters.sort.field === field && filters.sort.order === 'DESC' ? 'ASC' : 'DESC' } })
                      }
                    >
                      {label} {filters.sort.field === field ? (filters.sort.order === 'ASC' ? '▲' : '▼') : ''}
                    </button>
                  ) : (
                    label
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((w) => (
              <tr key={w.workflowId} data-testid="execution-row" data-id={w.workflowId}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${w.workflowId}`}
                    checked={selected.has(w.workflowId)}
                    onChange={() => toggle(w.workflowId)}
                    disabled={!session.can('executions:manage')}
                  />
                </td>
                <td>
                  {w.workflowType} <span className="muted">v{w.version}</span>
                </td>
                <td className="mono">
                  <Link to={`/executions/${enc(w.workflowId)}`}>{w.workflowId}</Link>
                </td>
                <td>
                  <StatusBadge status={w.status} />
                </td>
                <td>{w.correlationId}</td>
                <td>{time(w.startTime)}</td>
                <td>{time(w.endTime)}</td>
                <td>{w.endTime ? duration(w.executionTime) : ''}</td>
              </tr>
            ))}
            {rows.length === 0 && !results.loading && (
              <tr>
                <td colSpan={COLUMNS.length + 1} className="muted">
                  No executions match.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div className="pager" data-testid="pager">
        <button type="button" disabled={filters.page === 0} onClick={() => go({ ...filters, page: filters.page - 1 })}>
          ‹ Previous
        </button>
        <span data-testid="page-info">
          Page {filters.page + 1} of {pageCount(total, filters.size)} · {total} execution{total === 1 ? '' : 's'}
        </span>
        <button type="button" disabled={filters.page + 1 >= pageCount(total, filters.size)} onClick={() => go({ ...filters, page: filters.page + 1 })}>
          Next ›
        </button>
        <label className="inline">
          <span className="muted">Per page</span>
          <select value={filters.size} onChange={(e) => go({ ...filters, page: 0, size: Number(e.target.value) })}>
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => (results.reload(), counts.reload())}>
          Refresh
        </button>
      </div>
      <ConfirmDialog
        request={confirm}
        onDone={(ok) => {
          setConfirm(undefined);
          if (ok) {
            setSelected(new Set());
            results.reload();
            counts.reload();
          }
        }}
      />
    </section>
  );
}

function FilterForm({ filters, names, onSearch }: { filters: ExecutionFilters; names: string[]; onSearch: (f: ExecutionFilters) => void }) {
  const [f, setF] = useState(filters);
  useEffect(() => setF(filters), [filters]);
  const textRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // "/" focuses the search, as in most consoles.
    const onKey = (e: KeyboardEvent): void => {
      const t = e.target as HTMLElement;
      if (e.key === '/' && !/INPUT|TEXTAREA|SELECT/.test(t.tagName) && !t.isContentEditable) {
        e.preventDefault();
        textRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    onSearch({ ...f, page: 0 });
  };
  const set = (patch: Partial<ExecutionFilters>): void => setF({ ...f, ...patch });
  return (
    <form className="panel filters" onSubmit={submit} role="search" data-testid="filters">
      <label>
        Workflow name
        <input name="name" list="workflow-names" value={f.name} onChange={(e) => set({ name: e.target.value })} />
        <datalist id="workflow-names">
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </label>
      <label>
        Status
        <select
          name="status"
          value={f.statuses.length === 1 ? f.statuses[0] : f.statuses.length ? 'many' : ''}
          onChange={(e) => set({ statuses: e.target.value ? [e.target.value as WorkflowStatus] : [] })}
        >
          <option value="">any</option>
          {f.statuses.length > 1 && <option value="many">{f.statuses.join(', ')}</option>}
          {WORKFLOW_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Started from
        <input name="from" type="datetime-local" value={f.from} onChange={(e) => set({ from: e.target.value })} />
      </label>
      <label>
        Started until
        <input name="to" type="datetime-local" value={f.to} onChange={(e) => set({ to: e.target.value })} />
      </label>
      <label>
        Correlation id
        <input name="correlationId" value={f.correlationId} onChange={(e) => set({ correlationId: e.target.value })} />
      </label>
      <label>
        Free text
        <input name="text" ref={textRef} value={f.text} placeholder="words or field:value (press /)" onChange={(e) => set({ text: e.target.value })} />
      </label>
      <label className="wide">
        Query
        <input
          name="query"
          className="mono"
          value={f.query}
          placeholder="e.g. priority > 5 AND reasonForIncompletion IS NULL"
          onChange={(e) => set({ query: e.target.value })}
        />
      </label>
      <div className="row">
        <button type="submit" className="primary">
          Search
        </button>
        <button type="button" onClick={() => onSearch({ ...filtersFromParams(new URLSearchParams()) })}>
          Clear
        </button>
      </div>
    </form>
  );
}
