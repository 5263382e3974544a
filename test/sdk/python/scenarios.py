"""Baton driven through the official Conductor Python SDK (conductor-python).

Run by test/sdk/python.test.ts against a real Baton: `python scenarios.py <base-url> <prefix>`.
Every scenario uses the SDK's own clients (OrkesClients, WorkflowExecutor, TaskHandler workers) and
reports what it observed; the jest test asserts on that report (one JSON object on stdout's last line),
so a failure shows there with the observed values. A scenario that raises is reported with its error.
"""
import json
import sys
import time
import traceback

from conductor.client.automator.task_handler import TaskHandler
from conductor.client.configuration.configuration import Configuration
from conductor.client.http.models import StartWorkflowRequest, TaskDef, TaskResult
from conductor.client.http.models.rerun_workflow_request import RerunWorkflowRequest
from conductor.client.http.models.task_result_status import TaskResultStatus
from conductor.client.http.models.workflow_def import WorkflowDef
from conductor.client.http.models.workflow_task import WorkflowTask
from conductor.client.orkes_clients import OrkesClients
from conductor.client.worker.worker import Worker
from conductor.client.workflow.conductor_workflow import ConductorWorkflow
from conductor.client.workflow.task.simple_task import SimpleTask

BASE, PREFIX = (sys.argv[1:3] + ["http://127.0.0.1:8080", "py"])[:2]
config = Configuration(server_api_url=BASE + "/api")
clients = OrkesClients(configuration=config)
metadata = clients.get_metadata_client()
workflows = clients.get_workflow_client()
tasks = clients.get_task_client()
executor = clients.get_workflow_executor()

# Task types: one answered by TaskHandler workers, one polled by hand, one failing worker.
WORKED, MANUAL, FAILING = PREFIX + "_worked", PREFIX + "_manual", PREFIX + "_failing"


def wait_for(fn, limit=60.0, every=0.1):
    """Polls fn until it returns a truthy value (generous limit: the machine may be loaded)."""
    until = time.time() + limit
    while True:
        value = fn()
        if value:
            return value
        if time.time() > until:
            raise TimeoutError("condition not met within %ss" % limit)
        time.sleep(every)


def wait_status(workflow_id, statuses):
    return wait_for(lambda: (lambda wf: wf if wf.status in statuses else None)(workflows.get_workflow(workflow_id, include_tasks=True)))


def define(name, task_names, description=None):
    wf = ConductorWorkflow(executor=executor, name=name, version=1, description=description)
    for i, task_name in enumerate(task_names):
        task = SimpleTask(task_def_name=task_name, task_reference_name="t%d" % (i + 1))
        task.input_parameters.update({"n": "${workflow.input.n}"})
        wf.add(task)
    workflow_def = wf.to_workflow_def()
    workflow_def.output_parameters = {"last": "${t%d.output}" % len(task_names)}
    workflow_def.timeout_seconds = 0
    executor.register_workflow(workflow_def, overwrite=True)
    return workflow_def


def start(name, n=1, correlation_id=None):
    return executor.start_workflow(StartWorkflowRequest(name=name, version=1, input={"n": n}, correlation_id=correlation_id))


def tasks_of(wf):
    return [{"ref": t.reference_task_name, "status": t.status, "type": t.task_type} for t in (wf.tasks or [])]


def worked(task):
    """The TaskHandler worker: doubles its input."""
    return {"doubled": task.input_data["n"] * 2, "worker": "python"}


def failing(task):
    raise RuntimeError("python worker refused")


SCENARIOS = []


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


def run(fn, results):
    try:
        results[fn.__name__] = {"ok": True, **fn()}
    except Exception as e:  # reported to jest, which fails with the trace
        results[fn.__name__] = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "trace": traceback.format_exc()}


@scenario
def metadata_task_defs():
    metadata.register_task_def(TaskDef(name=WORKED, retry_count=0, timeout_seconds=60, response_timeout_seconds=30, description="python"))
    metadata.register_task_def(TaskDef(name=MANUAL, retry_count=1, retry_logic="FIXED", retry_delay_seconds=0, timeout_seconds=0, response_timeout_seconds=600))
    metadata.register_task_def(TaskDef(name=FAILING, retry_count=0, timeout_seconds=60, response_timeout_seconds=30))
    before = metadata.get_task_def(WORKED)
    metadata.update_task_def(TaskDef(name=WORKED, retry_count=0, timeout_seconds=60, response_timeout_seconds=30, description="python, updated"))
    after = metadata.get_task_def(WORKED)
    names = [d.name for d in metadata.get_all_task_defs()]
    return {"before": before.description, "after": after.description, "listed": all(n in names for n in (WORKED, MANUAL, FAILING)), "retryCount": metadata.get_task_def(MANUAL).retry_count}


@scenario
def metadata_workflow_defs():
    name = PREFIX + "_wf_meta"
    define(name, [WORKED], description="first")
    back = metadata.get_workflow_def(name, version=1)
    executor.register_workflow(back, overwrite=True)
    metadata.unregister_workflow_def(name, 1)
    try:
        metadata.get_workflow_def(name, version=1)
        gone = False
    except Exception as e:
        gone = getattr(e, "status", None) or getattr(e, "code", None) or str(e)
    return {"name": back.name, "version": back.version, "description": back.description, "tasks": [t.name for t in back.tasks], "gone": gone}


@scenario
def workers_complete_a_workflow():
    name = PREFIX + "_wf_workers"
    define(name, [WORKED, WORKED])
    wid = start(name, n=21, correlation_id=PREFIX + "_corr")
    wf = wait_status(wid, ("COMPLETED", "FAILED", "TERMINATED"))
    status = workflows.get_workflow_status(wid, include_output=True, include_variables=True)
    return {"status": wf.status, "output": wf.output, "tasks": tasks_of(wf), "statusCall": status.status, "statusOutput": status.output, "workerIds": [t.worker_id for t in wf.tasks]}


@scenario
def failing_worker_then_retry_and_restart():
    name = PREFIX + "_wf_failing"
    define(name, [FAILING])
    wid = start(name)
    failed = wait_status(wid, ("FAILED", "COMPLETED"))
    reason = failed.tasks[0].reason_for_incompletion
    # Retry while the failing worker still runs: fails again with a second attempt.
    executor.retry(wid)
    again = wait_for(lambda: (lambda wf: wf if wf.status == "FAILED" and len(wf.tasks) == 2 else None)(workflows.get_workflow(wid, include_tasks=True)))
    executor.restart(wid)
    restarted = wait_for(lambda: (lambda wf: wf if wf.status == "FAILED" and len(wf.tasks) == 1 else None)(workflows.get_workflow(wid, include_tasks=True)))
    return {"status": failed.status, "reason": reason, "afterRetry": tasks_of(again), "afterRestart": tasks_of(restarted)}


@scenario
def search_and_correlation():
    name = PREFIX + "_wf_workers"
    found = wait_for(lambda: (lambda r: r if len(r.results or []) >= 1 else None)(workflows.search(start=0, size=10, free_text="*", query="workflowType IN (%s) AND status IN (COMPLETED)" % name)), limit=60)
    return {"hits": len(found.results), "types": sorted({r.workflow_type for r in found.results}), "statuses": sorted({r.status for r in found.results})}


@scenario
def correlation_ids():
    # The SDK sends Python booleans as query values: includeClosed=True, includeTasks=False.
    correlated = executor.get_by_correlation_ids(workflow_name=PREFIX + "_wf_workers", correlation_ids=[PREFIX + "_corr"], include_closed=True, include_tasks=False)
    return {"correlated": {k: [w.status for w in v] for k, v in correlated.items()}}


@scenario
def manual_polling_and_updates():
    name = PREFIX + "_wf_manual"
    define(name, [MANUAL, MANUAL])
    wid = start(name, n=5)
    polled = wait_for(lambda: tasks.poll_task(MANUAL, worker_id="py-manual"))
    # In progress first (the worker keeps it), then completed with output.
    tasks.update_task(TaskResult(workflow_instance_id=wid, task_id=polled.task_id, status=TaskResultStatus.IN_PROGRESS, callback_after_seconds=0, worker_id="py-manual"))
    again = wait_for(lambda: tasks.poll_task(MANUAL, worker_id="py-manual"))
    tasks.update_task(TaskResult(workflow_instance_id=wid, task_id=again.task_id, status=TaskResultStatus.COMPLETED, output_data={"seen": again.input_data["n"]}, worker_id="py-manual"))
    second = wait_for(lambda: tasks.poll_task(MANUAL, worker_id="py-manual"))
    # The second task by reference name, as the SDK's WorkflowExecutor offers it.
    executor.update_task_by_ref_name({"byRef": True}, wid, "t2", "COMPLETED")
    wf = wait_status(wid, ("COMPLETED", "FAILED"))
    got = tasks.get_task(polled.task_id)
    return {"sameTask": again.task_id == polled.task_id, "inputN": polled.input_data["n"], "secondRef": second.reference_task_name, "status": wf.status, "output": wf.output, "first": {"status": got.status, "output": got.output_data, "workerId": got.worker_id}}


@scenario
def task_logs():
    # The SDK posts the log line as a bare JSON-less string body ("from python"), as Conductor reads it.
    name = PREFIX + "_wf_logs"
    define(name, [MANUAL])
    wid = start(name)
    polled = wait_for(lambda: tasks.poll_task(MANUAL, worker_id="py-logs"))
    tasks.add_task_log(polled.task_id, "from python")
    logs = [l.log for l in tasks.get_task_logs(polled.task_id)]
    executor.terminate(wid, reason="logs read")
    return {"logs": logs}


@scenario
def pause_resume_terminate():
    name = PREFIX + "_wf_control"
    define(name, [MANUAL])
    wid = start(name)
    executor.pause(wid)
    paused = workflows.get_workflow(wid, include_tasks=False).status
    executor.resume(wid)
    resumed = workflows.get_workflow(wid, include_tasks=False).status
    executor.terminate(wid, reason="stopped by python")
    wf = workflows.get_workflow(wid, include_tasks=True)
    return {"paused": paused, "resumed": resumed, "status": wf.status, "reason": wf.reason_for_incompletion, "tasks": tasks_of(wf)}


@scenario
def rerun_from_a_task():
    name = PREFIX + "_wf_rerun"
    define(name, [MANUAL, WORKED])
    wid = start(name, n=3)
    executor.update_task_by_ref_name({"first": 1}, wid, "t1", "COMPLETED")
    done = wait_status(wid, ("COMPLETED", "FAILED"))
    t1 = [t for t in done.tasks if t.reference_task_name == "t1"][0]
    executor.rerun(RerunWorkflowRequest(re_run_from_task_id=t1.task_id, task_input={"n": 7}), wid)
    # t1 is scheduled again with the new input; t2's worker then runs again.
    wait_for(lambda: any(t.reference_task_name == "t1" and t.status == "SCHEDULED" for t in workflows.get_workflow(wid, include_tasks=True).tasks))
    rerun_input = [t for t in workflows.get_workflow(wid, include_tasks=True).tasks if t.reference_task_name == "t1"][0].input_data
    executor.update_task_by_ref_name({"first": 2}, wid, "t1", "COMPLETED")
    after = wait_status(wid, ("COMPLETED", "FAILED"))
    return {"firstRun": done.status, "rerunInput": rerun_input, "afterRerun": after.status, "output": after.output}


@scenario
def remove_workflow():
    # The SDK sends archiveWorkflow=False (a Python boolean as text).
    name = PREFIX + "_wf_remove"
    define(name, [MANUAL])
    wid = start(name)
    executor.terminate(wid, reason="to remove")
    executor.remove_workflow(wid, archive_workflow=False)
    try:
        workflows.get_workflow(wid, include_tasks=False)
        removed = False
    except Exception as e:
        removed = getattr(e, "status", None) or getattr(e, "code", None) or str(e)
    return {"removed": removed}


@scenario
def upgrade_running_workflow():
    # Orkes' upgrade through the SDK's generated API (WorkflowResourceApi; the client has no wrapper for it).
    name = PREFIX + "_wf_upgrade"
    define(name, [MANUAL])
    wid = start(name, n=2)
    wait_for(lambda: any(t.reference_task_name == "t1" and t.status == "SCHEDULED" for t in workflows.get_workflow(wid, include_tasks=True).tasks))
    v2 = ConductorWorkflow(executor=executor, name=name, version=2)
    for ref, task_name in (("t0", WORKED), ("t1", MANUAL), ("t2", WORKED)):
        task = SimpleTask(task_def_name=task_name, task_reference_name=ref)
        task.input_parameters.update({"n": "${workflow.input.n}"})
        v2.add(task)
    v2_def = v2.to_workflow_def()
    v2_def.output_parameters = {"skipped": "${t0.output}", "last": "${t2.output}"}
    v2_def.timeout_seconds = 0
    executor.register_workflow(v2_def, overwrite=True)
    body = {"name": name, "version": 2, "taskOutput": {"t0": {"by": "python"}}, "workflowInput": {"n": 4}}
    workflows.workflowResourceApi.upgrade_running_workflow_to_version(body, wid)
    upgraded = workflows.get_workflow(wid, include_tasks=True)
    executor.update_task_by_ref_name({"first": 1}, wid, "t1", "COMPLETED")
    done = wait_status(wid, ("COMPLETED", "FAILED"))
    try:
        workflows.workflowResourceApi.upgrade_running_workflow_to_version({"name": name, "version": 2}, wid)
        refused = None
    except Exception as e:
        refused = getattr(e, "status", None) or str(e)
    return {"version": upgraded.workflow_version, "tasks": tasks_of(upgraded), "status": done.status, "output": done.output, "refusedAfterEnd": refused}


@scenario
def yield_and_signal():
    # YIELD (Orkes' operator, no task definition): held IN_PROGRESS until the SDK's signal ends it.
    name = PREFIX + "_wf_yield"
    yields = [WorkflowTask(name="yield", task_reference_name=ref, type="YIELD", input_parameters={"at": ref}) for ref in ("y1", "y2")]
    executor.register_workflow(WorkflowDef(name=name, version=1, tasks=yields, timeout_seconds=0), overwrite=True)
    wid = start(name)
    waiting = wait_for(lambda: [t for t in workflows.get_workflow(wid, include_tasks=True).tasks if t.status == "IN_PROGRESS"])
    polled = tasks.batch_poll_tasks("YIELD", count=5, timeout_in_millisecond=1)
    first = executor.signal(wid, "COMPLETED", {"approved": True}, return_strategy="BLOCKING_TASK")
    second = executor.signal(wid, "COMPLETED", {"last": 1}, return_strategy="TARGET_WORKFLOW")
    done = wait_status(wid, ("COMPLETED", "FAILED"))
    failing = start(name)
    wait_for(lambda: workflows.get_workflow(failing, include_tasks=True).tasks)
    failed = executor.signal(failing, "FAILED", {"why": "no"}, return_strategy="TARGET_WORKFLOW")
    return {
        "waiting": [(t.reference_task_name, t.task_type) for t in waiting],
        "polled": polled or [],
        "first": {"type": first.response_type, "task": (first.get_blocking_task() or {}).get("referenceTaskName")},
        "second": {"type": second.response_type, "status": (second.get_workflow() or {}).get("status")},
        "status": done.status,
        "outputs": {t.reference_task_name: t.output_data for t in done.tasks},
        "failedStatus": (failed.get_workflow() or {}).get("status"),
    }


def main():
    results = {}
    # Definitions first: the workers' task types must exist before TaskHandler polls them.
    run(metadata_task_defs, results)
    run(metadata_workflow_defs, results)
    # Workers run in TaskHandler processes, the SDK's own runtime (spawned: this module imports cleanly).
    handler = TaskHandler(workers=[Worker(WORKED, worked, poll_interval=0.05), Worker(FAILING, failing, poll_interval=0.05)], configuration=config, scan_for_annotated_workers=False, monitor_processes=False)
    handler.start_processes()
    try:
        for fn in SCENARIOS[2:]:
            run(fn, results)
    finally:
        handler.stop_processes()
    print(json.dumps(results, default=str))


if __name__ == "__main__":
    main()
