"""Driver of `npm run fuzz` (started by fuzz.sh inside the schemathesis venv).

Starts an embedded Baton (auth off, loopback, a fresh data directory), seeds a few definitions,
executions in every state, a task log, an event handler and an application, then runs
schemathesis against the server's own OpenAPI document (/api-docs) with a fixed seed and a bounded
number of examples per operation. The seeded names and ids are offered to the generator as
dictionaries, so part of the requests reach real executions and tasks instead of 404s.

Findings, each making the exit code non-zero: a 5xx, a response that contradicts the document
where the document is precise, a request outliving the request timeout (a hang), a request
answered 4xx that changed the stored state (baton_hooks.py), the server dying during the run.

Before schemathesis, a bounded phase (request_lines.py) sends odd spellings of the documented
routes as raw request lines to a second Baton, with auth on: a 5xx, a hang, or a route needing a
token answering an unauthenticated request is a finding there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

import request_lines

HERE = Path(__file__).resolve().parent

# Schemathesis checks that hold for every operation, plus ours (baton_hooks.py). Left out:
# - positive_data_acceptance: part of the validation is not expressible in JSON Schema (unique task
#   reference names, responseTimeoutSeconds below timeoutSeconds, the search query syntax, an event
#   action needing its own object), and a request can conflict with the state (remove a RUNNING
#   execution), so a schema-valid request may rightly get a 4xx;
# - allow_header_conformance: it reads Allow the OpenAPI way, concrete paths before templates, while
#   Baton serves Conductor's overlapping routes as Spring does (DELETE /api/event/execution removes
#   the handler named "execution"), so Allow lists the methods of every template a path matches;
# - the auth checks: auth is off in this run.
CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "negative_data_rejection",
    "unsupported_method",
    "rejected_request_changes_nothing",
]


def log(msg: str) -> None:
    print(f"fuzz: {msg}", file=sys.stderr, flush=True)


def start_server(server_js: str, data_dir: Path, log_path: Path, auth: bool = False) -> tuple[subprocess.Popen, str]:
    env = {
        **os.environ,
        "PORT": "0",
        "BATON_BIND": "127.0.0.1",
        "BATON_AUTH": "off",
        "BATON_PROFILE": "embedded",
        "BATON_DATA_DIR": str(data_dir),
        "LOG_LEVEL": "info",
        # Batches the fuzzer starts stay queued: their work in the background would be taken for a change made by
        # whichever rejected request came next (the runner's own tests are test/api/batch.test.ts and the crash suites).
        "BATON_BATCH_INTERVAL_MS": "86400000",
    }
    if auth:
        key = request_lines.ADMIN_KEY
        env.update({"BATON_AUTH": "on", "BATON_ADMIN_KEY_ID": key["keyId"], "BATON_ADMIN_KEY_SECRET": key["keySecret"]})
    out = open(log_path, "w")
    proc = subprocess.Popen(["node", server_js], env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"fuzz: Baton exited at start (code {proc.returncode}); log: {log_path}")
        for line in log_path.read_text().splitlines():
            if '"Baton listening"' in line:
                return proc, f"http://127.0.0.1:{json.loads(line)['port']}"
        time.sleep(0.2)
    stop_server(proc)
    raise SystemExit(f"fuzz: Baton did not start within 60 s; log: {log_path}")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Api:
    def __init__(self, base: str) -> None:
        self.base = base
        self.http = requests.Session()

    def call(self, method: str, path: str, **kw: object) -> requests.Response:
        r = self.http.request(method, self.base + path, timeout=30, **kw)
        if r.status_code >= 300:
            raise SystemExit(f"fuzz: seeding failed: {method} {path} -> {r.status_code} {r.text[:500]}")
        return r

    def poll_one(self, task_type: str) -> dict:
        r = self.call("GET", f"/api/tasks/poll/{task_type}", params={"workerid": "fuzz-seed"})
        if r.status_code != 200:
            raise SystemExit(f"fuzz: seeding failed: nothing to poll for {task_type}")
        return r.json()

    def tasks_of(self, workflow_id: str) -> list[dict]:
        return self.call("GET", f"/api/workflow/{workflow_id}", params={"includeTasks": "true"}).json()["tasks"]


def seed(api: Api) -> dict[str, list[str]]:
    """Definitions and executions in every state; returns the dictionaries offered to schemathesis."""
    api.call("POST", "/api/metadata/taskdefs", json=[{"name": "fuzz_task", "retryCount": 0, "responseTimeoutSeconds": 3600}])
    # Every execution parks (a worker task nobody else polls, WAIT and HUMAN without a deadline), so
    # nothing changes in the background while the fuzzer runs.
    flow = {
        "name": "fuzz_flow",
        "version": 1,
        "schemaVersion": 2,
        "tasks": [
            {"name": "fuzz_task", "taskReferenceName": "work", "type": "SIMPLE"},
            {"name": "wait", "taskReferenceName": "wait", "type": "WAIT"},
            {"name": "review", "taskReferenceName": "review", "type": "HUMAN"},
        ],
    }
    quick = {"name": "fuzz_quick", "version": 1, "schemaVersion": 2, "tasks": [{"name": "set", "taskReferenceName": "set", "type": "SET_VARIABLE", "inputParameters": {"x": 1}}]}
    api.call("POST", "/api/metadata/workflowdef", json=flow)
    api.call("POST", "/api/metadata/workflowdef", json=quick)

    def start(name: str, correlation: str) -> str:
        return api.call("POST", "/api/workflow", json={"name": name, "correlationId": correlation, "input": {"seed": correlation}}).text

    # One at a time through the worker queue, so each poll hands out the task just scheduled.
    failed = start("fuzz_flow", "failed")
    task = api.poll_one("fuzz_task")
    api.call("POST", "/api/tasks", json={"workflowInstanceId": failed, "taskId": task["taskId"], "status": "FAILED_WITH_TERMINAL_ERROR", "reasonForIncompletion": "seeded failure"})
    waiting = start("fuzz_flow", "waiting")
    task = api.poll_one("fuzz_task")
    api.call("POST", f"/api/tasks/{task['taskId']}/log", data="seeded log line", headers={"Content-Type": "text/plain"})
    api.call("POST", "/api/tasks", json={"workflowInstanceId": waiting, "taskId": task["taskId"], "status": "COMPLETED", "outputData": {"done": True}})
    in_progress = start("fuzz_flow", "in-progress")
    api.poll_one("fuzz_task")  # claimed: IN_PROGRESS until its response timeout, an hour away
    running = start("fuzz_flow", "running")
    paused = start("fuzz_flow", "paused")
    api.call("PUT", f"/api/workflow/{paused}/pause")
    terminated = start("fuzz_flow", "terminated")
    api.call("DELETE", f"/api/workflow/{terminated}", params={"reason": "seeded termination"})
    completed = start("fuzz_quick", "completed")

    workflow_ids = [failed, waiting, in_progress, running, paused, terminated, completed]
    task_ids = [t["taskId"] for w in workflow_ids for t in api.tasks_of(w)]

    api.call("POST", "/api/event", json={"name": "fuzz_handler", "event": "fuzz:seed", "active": False, "actions": [{"action": "complete_task", "complete_task": {"workflowId": "${workflowId}", "taskRefName": "wait"}}]})
    app = api.call("POST", "/api/applications", json={"name": "fuzz_app"}).json()
    key = api.call("POST", f"/api/applications/{app['id']}/accessKeys").json()
    api.call("POST", f"/api/applications/{app['id']}/roles/WORKER")

    return {
        "workflow-ids": workflow_ids,
        "task-ids": task_ids,
        "workflow-names": ["fuzz_flow", "fuzz_quick"],
        "task-types": ["fuzz_task", "WAIT", "HUMAN"],
        "task-refs": ["work", "wait", "review"],
        "names": ["fuzz_flow", "fuzz_quick", "fuzz_task", "fuzz_handler"],
        "events": ["fuzz:seed"],
        "correlation-ids": ["failed", "waiting", "running", "paused"],
        "application-ids": [app["id"]],
        "key-ids": [key["id"]],
    }


def write_config(path: Path, dictionaries: dict[str, list[str]]) -> None:
    """The checked-in schemathesis.toml, with the seeded dictionaries appended."""
    text = (HERE / "schemathesis.toml").read_text()
    text += "\n# Appended by fuzz.py: what it seeded.\n"
    for name, values in dictionaries.items():
        text += f"\n[dictionaries.{name}]\nvalues = {json.dumps(values)}\n"
    path.write_text(text)


def request_line_phase(args: argparse.Namespace, work: Path) -> int:
    """Odd request lines to a Baton of its own with auth on; the number of findings."""
    data = work / "data-auth"
    data.mkdir()
    server_log = work / "server-auth.log"
    proc, base = start_server(args.server, data, server_log, auth=True)
    started = time.monotonic()
    try:
        found = request_lines.run(int(base.rsplit(":", 1)[1]), args.request_lines, args.seed, args.request_timeout, log)
        if proc.poll() is not None:
            log(f"Baton (auth on) died during the request lines (exit code {proc.returncode}); log: {server_log}")
            found += 1
    finally:
        stop_server(proc)
    log(f"request lines finished in {time.monotonic() - started:.0f} s")
    return found


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True, help="the built main.js")
    p.add_argument("--seed", type=int, default=20260901, help="hypothesis seed (fixed, so a run is reproducible)")
    p.add_argument("--max-examples", type=int, default=25, help="test cases per operation and phase")
    p.add_argument("--request-timeout", type=float, default=15, help="seconds; a request still unanswered then is a hang")
    p.add_argument("--request-lines", type=int, default=1500, help="odd request lines sent to a Baton with auth on (0: none)")
    p.add_argument("--no-schemathesis", action="store_true", help="run only the request-line phase")
    p.add_argument("--keep", action="store_true", help="keep the data directory and reports")
    p.add_argument("st_args", nargs="*", help="more `st run` options, after --")
    args = p.parse_args()

    work = Path(tempfile.mkdtemp(prefix="baton-fuzz-"))
    found = request_line_phase(args, work) if args.request_lines > 0 else 0
    if args.no_schemathesis:
        if found == 0 and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return 1 if found else 0
    data = work / "data"
    data.mkdir()
    server_log = work / "server.log"
    proc, base = start_server(args.server, data, server_log)
    code = 1
    try:
        log(f"Baton on {base}, data in {data}")
        dictionaries = seed(Api(base))
        config = work / "schemathesis.toml"
        write_config(config, dictionaries)
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "baton_hooks", "PYTHONPATH": str(HERE), "PYTHONDONTWRITEBYTECODE": "1", "BATON_FUZZ_DB": str(data / "baton.db")}
        cmd = [
            str(Path(sys.executable).parent / "st"),
            "--config-file", str(config),
            "run", f"{base}/api-docs",
            "--seed", str(args.seed),
            "--max-examples", str(args.max_examples),
            "--workers", "1",
            "--request-timeout", str(args.request_timeout),
            "--checks", ",".join(CHECKS),
            "--generation-database", "none",
            # Health checks of the generator (names with a pattern filter many values; a loaded machine is
            # slow), not findings of the API: they would fail the run without any request being wrong.
            "--suppress-health-check", "filter_too_much,too_slow",
            "--no-color",
            "--report", "junit",
            "--report-dir", str(work / "reports"),
            *args.st_args,
        ]
        started = time.monotonic()
        code = subprocess.run(cmd, env=env, cwd=work).returncode
        log(f"schemathesis finished in {time.monotonic() - started:.0f} s with exit code {code}")
        if proc.poll() is not None:
            log(f"Baton died during the run (exit code {proc.returncode}); log: {server_log}")
            code = code or 1
    finally:
        stop_server(proc)
        code = code or (1 if found else 0)
        if code != 0 or args.keep:
            log(f"kept {work} (server.log, reports/, data/)")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
