"""Schemathesis hooks of `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS=baton_hooks).

- `rejected_request_changes_nothing`: a check that every request answered 4xx left the stored
  state as it found it (Baton promises "bad input never changes state"). The state is read from
  the embedded server's SQLite file (BATON_FUZZ_DB) straight after each response, so it does not
  depend on the API under test. Schemathesis runs with one worker, so nothing else writes between
  a request and its answer except the server's own background work, which the snapshot leaves
  out (see SNAPSHOT).
- Waits the API allows (execute's waitForSeconds, 10 s when absent and up to 600; signal/sync's
  timeoutMillis; a long poll's timeout) are capped, so the run stays short and the per-request
  timeout tells a hang from a wait asked for.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from typing import Any

import schemathesis

# What a request may change, one query per table, primary key first. Left out on purpose:
# - workflows.rev/outbox: a committed turn clears its outbox after its effects ran (a later write
#   of the same row), so they change after the answer of the request that caused them;
# - idx_*: the search index, written by the indexer every BATON_INDEX_FLUSH_MS;
# - event_executions: what event handlers did, recorded in the background;
# - actor_reminders: derived deadlines, re-armed by the host.
SNAPSHOT: dict[str, tuple[str, int]] = {
    "task_defs": ("SELECT name, data FROM task_defs", 1),
    "workflow_defs": ("SELECT name, version, data FROM workflow_defs", 2),
    "event_handlers": ("SELECT name, data FROM event_handlers", 1),
    "applications": ("SELECT id, data FROM applications", 1),
    "access_keys": ("SELECT id, application_id, data FROM access_keys", 1),
    "settings": ("SELECT name, value FROM settings", 1),
    "workflows": ("SELECT workflow_id, status, data, def_key FROM workflows", 1),
    "workflow_snapshots": ("SELECT def_key, data FROM workflow_snapshots", 1),
    "tasks": ("SELECT task_id, workflow_id, data FROM tasks", 1),
    "task_logs": ("SELECT task_id, created_time, log FROM task_logs", 0),
    "batches": ("SELECT id, data, cancel_requested FROM batches", 1),
}

Snapshot = dict[str, dict[Any, str]]

# Caps on waits, per query parameter (seconds or milliseconds, as the API counts them), and whether
# to set the cap where the parameter is absent (execute's default wait is 10 s, signal/sync's 5 s).
WAIT_CAPS = {"waitForSeconds": (1, True), "timeoutMillis": (1000, True), "timeout": (50, False)}


class StateReader:
    """Snapshots the tables above; reuses the last one while SQLite reports no commit since."""

    def __init__(self, path: str) -> None:
        # Read-only, autocommit: `PRAGMA data_version` changes whenever another connection commits.
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout = 5000")
        self.version: int | None = None
        self.last: Snapshot = {}

    def data_version(self) -> int:
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def snapshot(self) -> Snapshot:
        version = self.data_version()
        if version == self.version:
            return self.last
        snap: Snapshot = {}
        self.db.execute("BEGIN")  # one read transaction: every table at the same commit
        try:
            for table, (sql, key_columns) in SNAPSHOT.items():
                rows: dict[Any, str] = {}
                copies: dict[Any, int] = {}
                for row in self.db.execute(sql):
                    if key_columns:
                        rows[row[:key_columns]] = hashlib.blake2b(repr(row).encode(), digest_size=16).hexdigest()
                    else:
                        # A row without a key (a log line) is its own key; its n-th copy another one.
                        copies[row] = copies.get(row, 0) + 1
                        rows[(row, copies[row])] = ""
                snap[table] = rows
        finally:
            self.db.execute("COMMIT")
        self.version, self.last = version, snap
        return snap


def describe_changes(before: Snapshot, after: Snapshot, limit: int = 5) -> list[str]:
    """Human-readable differences, a few per table."""
    out: list[str] = []
    for table in SNAPSHOT:
        b, a = before.get(table, {}), after.get(table, {})
        added = [k for k in a if k not in b]
        removed = [k for k in b if k not in a]
        changed = [k for k in a if k in b and a[k] != b[k]]
        for label, keys in (("added", added), ("removed", removed), ("changed", changed)):
            if keys:
                shown = ", ".join(str(k[0] if len(k) == 1 else k)[:120] for k in keys[:limit])
                more = f" (+{len(keys) - limit} more)" if len(keys) > limit else ""
                out.append(f"{table}: {len(keys)} {label}: {shown}{more}")
    return out


_reader: StateReader | None = None
_before: dict[str, Snapshot] = {}
_verdicts: dict[str, list[str]] = {}


def reader() -> StateReader:
    global _reader
    if _reader is None:
        _reader = StateReader(os.environ["BATON_FUZZ_DB"])
    return _reader


def cap_waits(case: Any) -> None:
    """Every phase's requests pass here (map_* hooks miss the coverage phase's boundary values)."""
    declared = {p.name for p in case.operation.query}
    if case.query is not None and not isinstance(case.query, dict):
        return  # a negative case with a query of another shape: sent as generated
    query = dict(case.query or {})
    for name, (cap, when_absent) in WAIT_CAPS.items():
        v = query.get(name)
        number = int(v) if isinstance(v, str) and v.isdigit() else v  # the coverage phase sends some as text
        if name in declared and ((v is None and when_absent) or (isinstance(number, int) and not isinstance(number, bool) and number > cap)):
            query[name] = cap
    if query != (case.query or {}):
        case.query = query


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    cap_waits(case)
    _before[case.id] = reader().snapshot()


@schemathesis.hook
def after_call(ctx: Any, case: Any, response: Any) -> None:
    before = _before.pop(case.id, None)
    if before is None or not 400 <= response.status_code < 500:
        return
    changes = describe_changes(before, reader().snapshot())
    if changes:
        _verdicts[case.id] = changes


@schemathesis.check
def rejected_request_changes_nothing(ctx: Any, response: Any, case: Any) -> bool | None:
    """A request answered 4xx must leave definitions, executions, tasks, logs and keys unchanged."""
    changes = _verdicts.pop(case.id, None)
    if changes and 400 <= response.status_code < 500:
        raise AssertionError(f"Rejected with {response.status_code}, yet the stored state changed:\n  " + "\n  ".join(changes))
    return None

