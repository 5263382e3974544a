"""Secrets and tags through the official Conductor Python SDK (conductor-python).

Run by test/sdk/python-secrets.test.ts against a real Baton: `python secrets_scenarios.py <base-url> <prefix>`.
Reports what it observed as one JSON object on stdout's last line, as scenarios.py does.
"""
import json
import sys
import time
import traceback

from conductor.client.configuration.configuration import Configuration
from conductor.client.http.models import StartWorkflowRequest, TaskDef, TaskResult
from conductor.client.http.models.task_result_status import TaskResultStatus
from conductor.client.orkes.models.metadata_tag import MetadataTag
from conductor.client.orkes_clients import OrkesClients
from conductor.client.workflow.conductor_workflow import ConductorWorkflow
from conductor.client.workflow.task.simple_task import SimpleTask

BASE, PREFIX = (sys.argv[1:3] + ["http://127.0.0.1:8080", "py"])[:2]
config = Configuration(server_api_url=BASE + "/api")
clients = OrkesClients(configuration=config)
secrets = clients.get_secret_client()
metadata = clients.get_metadata_client()
workflows = clients.get_workflow_client()
tasks = clients.get_task_client()
executor = clients.get_workflow_executor()


def tags_of(tags):
    return sorted([{"key": t.key, "value": t.value} for t in tags or []], key=lambda t: t["key"])


def secret_client():
    key = PREFIX + "_secret"
    secrets.put_secret(key, "python-value")
    got = secrets.get_secret(key)
    exists = secrets.secret_exists(key)
    listed = key in secrets.list_all_secret_names()
    secrets.set_secret_tags([MetadataTag("owner", "python")], key)
    tags = tags_of(secrets.get_secret_tags(key))
    secrets.delete_secret_tags([MetadataTag("owner", "python")], key)
    tags_after = tags_of(secrets.get_secret_tags(key))
    secrets.delete_secret(key)
    try:
        secrets.get_secret(key)
        gone = None
    except Exception as e:
        gone = getattr(e, "status", None) or getattr(e, "code", None) or str(e)
    return {"got": got, "exists": exists, "listed": listed, "tags": tags, "tagsAfter": tags_after, "gone": gone,
            "existsAfter": secrets.secret_exists(key)}


def secret_reaches_polled_task():
    key = PREFIX + "_token"
    task_type = PREFIX + "_secret_task"
    secrets.put_secret(key, "token-for-python")
    metadata.register_task_def(TaskDef(name=task_type, retry_count=0, timeout_seconds=0, response_timeout_seconds=60))
    wf = ConductorWorkflow(executor=executor, name=PREFIX + "_secret_wf", version=1)
    task = SimpleTask(task_def_name=task_type, task_reference_name="t")
    task.input_parameters["auth"] = "Bearer ${workflow.secrets.%s}" % key
    wf.add(task)
    executor.register_workflow(wf.to_workflow_def(), overwrite=True)
    workflow_id = workflows.start_workflow(StartWorkflowRequest(name=wf.name, version=1, input={}))
    polled = None
    until = time.time() + 30
    while polled is None and time.time() < until:
        polled = tasks.poll_task(task_type, worker_id="python")
        if polled is None:
            time.sleep(0.1)
    received = polled.input_data.get("auth")
    tasks.update_task(TaskResult(workflow_instance_id=workflow_id, task_id=polled.task_id, status=TaskResultStatus.COMPLETED, output_data={}))
    stored = workflows.get_workflow(workflow_id, include_tasks=True).tasks[0].input_data.get("auth")
    return {"received": received, "stored": stored}


def metadata_tags():
    task_type = PREFIX + "_tagged_task"
    metadata.register_task_def(TaskDef(name=task_type, retry_count=0, timeout_seconds=0, response_timeout_seconds=60))
    wf = ConductorWorkflow(executor=executor, name=PREFIX + "_tagged_wf", version=1)
    wf.add(SimpleTask(task_def_name=task_type, task_reference_name="t"))
    executor.register_workflow(wf.to_workflow_def(), overwrite=True)
    metadata.set_workflow_tags([MetadataTag("a", "1"), MetadataTag("b", "2")], wf.name)
    metadata.add_workflow_tag(MetadataTag("c", "3"), wf.name)
    metadata.delete_workflow_tag(MetadataTag("a", "1"), wf.name)
    metadata.setTaskTags([MetadataTag("x", "1")], task_type)
    metadata.addTaskTag(MetadataTag("y", "2"), task_type)
    metadata.deleteTaskTag(MetadataTag("x", "1"), task_type)
    return {"workflow": tags_of(metadata.get_workflow_tags(wf.name)), "task": tags_of(metadata.getTaskTags(task_type))}


def main():
    results = {}
    for fn in (secret_client, secret_reaches_polled_task, metadata_tags):
        try:
            results[fn.__name__] = {"ok": True, **fn()}
        except Exception as e:  # reported to jest, which fails with the trace
            results[fn.__name__] = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "trace": traceback.format_exc()}
    print(json.dumps(results, default=str))


if __name__ == "__main__":
    main()
