import { useState } from 'react';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ConfirmDialog, ErrorBanner, StatusBadge, time, type ConfirmRequest } from '../components/common';
import { Link, enc } from '../router';
import { BATCH_ACTION_LABELS } from '../model/batch-actions';

const POLL_MS = 1000;

export function BatchesView() {
  const list = useAsync(() => call('GET /api/batch'), [], POLL_MS);
  const rows = list.data ?? [];
  return (
    <section>
      <h1>Batches</h1>
      <p className="muted">An action over every execution a search matched; start one from the executions search.</p>
      <ErrorBanner error={list.error} title="Loading batches failed" />
      <div className="table-wrap">
        <table data-testid="batches">
          <thead>
            <tr>
              <th>Batch</th>
              <th>Action</th>
              <th>State</th>
              <th>Progress</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((b) => (
              <tr key={b.id} data-testid="batch-row" data-id={b.id}>
                <td className="mono">
                  <Link to={`/batches/${enc(b.id)}`}>{b.id}</Link>
                </td>
                <td>{BATCH_ACTION_LABELS[b.action]}</td>
                <td>
                  <StatusBadge status={b.state} />
                </td>
                <td>
                  {b.done + b.failed} of {b.matched}
                  {b.failed > 0 ? ` (${b.failed} failed)` : ''}
                </td>
                <td>{time(b.createdAt)}</td>
              </tr>
            ))}
            {rows.length === 0 && !list.loading && (
              <tr>
                <td colSpan={5} className="muted">
                  No batches.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function BatchView({ id }: { id: string }) {
  const session = useSession();
  const b = useAsync(() => call('GET /api/batch/{batchId}', { params: { batchId: id } }), [id], POLL_MS);
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const batch = b.data;
  const cancel = (): void =>
    setConfirm({
      title: 'Cancel this batch?',
      body: <p className="muted">It stops before its next execution; those already acted on stay as they are.</p>,
      confirmLabel: 'Cancel batch',
      danger: true,
      run: () => call('POST /api/batch/{batchId}/cancel', { params: { batchId: id } }),
    });
  return (
    <section>
      <h1>Batch</h1>
      <p className="mono">{id}</p>
      <ErrorBanner error={b.error} title="Loading the batch failed" />
      {batch && (
        <>
          <dl className="panel" data-testid="batch-summary">
            <dt>Action</dt>
            <dd>{BATCH_ACTION_LABELS[batch.action]}</dd>
            <dt>Search</dt>
            <dd className="mono">
              {batch.query || '(any)'} · free text {batch.freeText}
            </dd>
            <dt>State</dt>
            <dd data-testid="batch-state" data-state={batch.state}>
              <StatusBadge status={batch.state} />
              {batch.cancelRequested && batch.state === 'RUNNING' ? ' (cancelling)' : ''}
            </dd>
            <dt>Progress</dt>
            <dd>
              <progress max={Math.max(1, batch.matched)} value={batch.done + batch.failed} aria-label="Progress" />{' '}
              <span data-testid="batch-progress">
                {batch.done} done, {batch.failed} failed, of {batch.matched} matched
              </span>
            </dd>
            <dt>Started</dt>
            <dd>{time(batch.createdAt)}</dd>
            {batch.finishedAt !== undefined && (
              <>
                <dt>Finished</dt>
                <dd>{time(batch.finishedAt)}</dd>
              </>
            )}
          </dl>
          {session.can('executions:manage') && batch.state === 'RUNNING' && !batch.cancelRequested && (
            <button type="button" className="danger" onClick={cancel}>
              Cancel batch
            </button>
          )}
          {batch.failures.length > 0 && (
            <>
              <h2>Failed executions</h2>
              <ul data-testid="batch-failures">
                {batch.failures.map((f) => (
                  <li key={f.workflowId}>
                    <Link to={`/executions/${enc(f.workflowId)}`} className="mono">
                      {f.workflowId}
                    </Link>
                    : {f.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      <p>
        <Link to="/batches">All batches</Link>
      </p>
      <ConfirmDialog
        request={confirm}
        onDone={(ok) => {
          setConfirm(undefined);
          if (ok) b.reload();
        }}
      />
    </section>
  );
}
