import { useMemo, useState } from 'react';
import { call } from '../api/typed';
import { useSession } from '../api/session';
import { useAsync } from '../api/use-async';
import { ConfirmDialog, ErrorBanner, time, type ConfirmRequest } from '../components/common';

interface PollData {
  queueName: string;
  domain?: string;
  workerId?: string;
  lastPollTime: number;
}

/** A queue name is `[domain:]type[@namespace][-isolationGroup]`; the console shows type and domain apart. */
export function splitQueueName(name: string): { domain?: string; taskType: string } {
  const i = name.indexOf(':');
  return i > 0 ? { domain: name.slice(0, i), taskType: name.slice(i + 1) } : { taskType: name };
}

export function QueuesView() {
  const session = useSession();
  const sizes = useAsync(() => call('GET /api/tasks/queue/all'), [], 5000);
  const polls = useAsync(() => call('GET /api/tasks/queue/polldata/all'), [], 5000);
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const [requeued, setRequeued] = useState<string>();
  const rows = useMemo(() => {
    const byType = new Map<string, { taskType: string; domain?: string; size: number; workers: PollData[] }>();
    const key = (t: string, d?: string): string => `${d ?? ''}\u0000${t}`;
    for (const [name, size] of Object.entries(sizes.data ?? {})) {
      const q = splitQueueName(name);
      byType.set(key(q.taskType, q.domain), { ...q, size, workers: [] });
    }
    for (const p of polls.data ?? []) {
      const k = key(p.queueName, p.domain);
      const row = byType.get(k) ?? { taskType: p.queueName, domain: p.domain, size: 0, workers: [] };
      row.workers.push(p);
      byType.set(k, row);
    }
    return [...byType.values()].sort((a, b) => a.taskType.localeCompare(b.taskType) || (a.domain ?? '').localeCompare(b.domain ?? ''));
  }, [sizes.data, polls.data]);
  return (
    <section>
      <h1>Queues and workers</h1>
      <ErrorBanner error={sizes.error ?? polls.error} />
      {requeued && (
        <div className="notice" role="status" data-testid="requeued">
          {requeued}
        </div>
      )}
      <div className="table-wrap">
        <table data-testid="queues">
          <thead>
            <tr>
              <th>Task type</th>
              <th>Domain</th>
              <th>Pending</th>
              <th>Workers (last poll)</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.domain ?? ''}:${r.taskType}`} data-testid="queue-row" data-type={r.taskType}>
                <td>{r.taskType}</td>
                <td>{r.domain ?? <span className="muted">none</span>}</td>
                <td data-testid="pending">{r.size}</td>
                <td className="wrap">
                  {r.workers.length === 0 ? (
                    <span className="muted">no poll seen</span>
                  ) : (
                    r.workers
                      .sort((a, b) => b.lastPollTime - a.lastPollTime)
                      .map((w) => (
                        <div key={w.workerId ?? ''}>
                          <code>{w.workerId ?? 'unnamed'}</code> {time(w.lastPollTime)}
                        </div>
                      ))
                  )}
                </td>
                <td>
                  {session.can('admin') && (
                    <button
                      type="button"
                      onClick={() =>
                        setConfirm({
                          title: `Requeue ${r.taskType}?`,
                          body: <p>Every execution holding a SCHEDULED {r.taskType} task pushes it to its queue again (pushing twice is harmless).</p>,
                          confirmLabel: 'Requeue',
                          run: async () =>
                            setRequeued(
                              `${r.taskType}: ${await call('POST /api/tasks/queue/requeue/{taskType}', { params: { taskType: r.taskType } })} task(s) requeued`,
                            ),
                        })
                      }
                    >
                      Requeue
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {rows.length === 0 && !sizes.loading && (
              <tr>
                <td colSpan={5} className="muted">
                  No queue yet.
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
          if (ok) sizes.reload();
        }}
      />
    </section>
  );
}
