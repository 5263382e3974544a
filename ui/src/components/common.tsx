import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiFailure, errorText } from '../api/client';

export function StatusBadge({ status }: { status?: string }) {
  if (!status) return <span className="badge">NOT RUN</span>;
  return (
    <span className={`badge s-${status}`} data-status={status}>
      {status.replace(/_/g, ' ')}
    </span>
  );
}

/** The API's refusal as it answered: message, and each validation error with its path. */
export function ErrorBanner({ error, title }: { error: unknown; title?: string }) {
  if (error === undefined || error === null) return null;
  const v = error instanceof ApiFailure ? error.validationErrors : [];
  return (
    <div className="error" role="alert" data-testid="error">
      {title ? <b>{title}: </b> : null}
      {errorText(error)}
      {v.length > 0 && (
        <ul>
          {v.map((x, i) => (
            <li key={i}>
              {x.path ? <code>{x.path}</code> : null} {x.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Json({ value, testId }: { value: unknown; testId?: string }) {
  return <pre data-testid={testId}>{value === undefined ? '' : JSON.stringify(value, null, 2)}</pre>;
}

export const time = (ms?: number | string): string => {
  if (ms === undefined || ms === '' || ms === 0) return '';
  const d = new Date(typeof ms === 'string' && /^\d+$/.test(ms) ? Number(ms) : ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toLocaleString();
};

export const duration = (ms: number): string => {
  if (!(ms >= 0)) return '';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
};

export interface ConfirmRequest {
  title: string;
  body?: ReactNode;
  confirmLabel?: string;
  danger?: boolean;
  run: () => Promise<unknown>;
}

/** A modal that asks before an action, runs it, and keeps the API's refusal on screen. */
export function ConfirmDialog({ request, onDone }: { request: ConfirmRequest | undefined; onDone: (ok: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (request && !d.open) {
      setError(undefined);
      d.showModal();
    } else if (!request && d.open) d.close();
  }, [request]);
  const confirm = async (): Promise<void> => {
    if (!request) return;
    setBusy(true);
    setError(undefined);
    try {
      await request.run();
      onDone(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} onCancel={(e) => (e.preventDefault(), onDone(false))} aria-labelledby="confirm-title" data-testid="confirm-dialog">
      {request && (
        <>
          <h2 id="confirm-title">{request.title}</h2>
          {request.body}
          <ErrorBanner error={error} title="The server refused" />
          <div className="actions">
            <button type="button" onClick={() => onDone(false)}>
              Cancel
            </button>
            <button
              type="button"
              className={request.danger ? 'danger' : 'primary'}
              onClick={() => void confirm()}
              disabled={busy}
              autoFocus
              data-testid="confirm"
            >
              {busy ? 'Working…' : (request.confirmLabel ?? 'Confirm')}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

export function Tabs<K extends string>({ tabs, current, onChange }: { tabs: Array<[K, string]>; current: K; onChange: (k: K) => void }) {
  return (
    <div className="tabs" role="tablist">
      {tabs.map(([k, label]) => (
        <button key={k} type="button" role="tab" aria-selected={current === k} onClick={() => onChange(k)}>
          {label}
        </button>
      ))}
    </div>
  );
}
