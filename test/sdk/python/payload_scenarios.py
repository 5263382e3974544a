"""External payload storage through the official Conductor Python SDK (conductor-python).

conductor-python 2.0.0 has the location call (TaskResourceApi.get_external_storage_location1) and the
externalInput/OutputPayloadStoragePath fields, but uploads and downloads nothing by itself: this program
does what a Python user does with them (a PUT or GET of the location's uri with requests).

Run by test/sdk/python-payloads.test.ts against a real Baton: `python payload_scenarios.py <base-url> <prefix>`.
Reports what it observed as one JSON object on stdout's last line, as scenarios.py does.
"""
import json
import sys
import time
import traceback

import requests
from conductor.client.configuration.configuration import Configuration
from conductor.client.http.models import StartWorkflowRequest, TaskDef, TaskResult
from conductor.client.http.models.task_result_status import TaskResultStatus
from conductor.client.orkes_clients import OrkesClients
from conductor.client.workflow.conductor_workflow import ConductorWorkflow
from conductor.client.workflow.task.simple_task import SimpleTask

BASE, PREFIX = (sys.argv[1:3] + ["http://127.0.0.1:8080", "py"])[:2]
config = Configuration(server_api_url=BASE + "/api")
clients = OrkesClients(configuration=config)
metadata = clients.get_metadata_client()
workflows = clients.get_workflow_client()
tasks = clients.get_task_client()
executor = clients.get_workflow_executor()
task_api = tasks.taskResourceApi


def upload(payload_type, payload):
    location = task_api.get_external_storage_location1("", "WRITE", payload_type)
    put = requests.put(location.uri, data=json.dumps(payload), headers={"Content-Type": "application/json"}, timeout=30)
    put.raise_for_status()
    return location.path


def download(payload_type, path):
    location = task_api.get_external_storage_location1(path, "READ", payload_type)
    got = requests.get(location.uri, timeout=30)
    got.raise_for_status()
    return got.json()


def large_payloads():
    task_type = PREFIX + "_big"
    metadata.register_task_def(TaskDef(name=task_type, retry_count=0, timeout_seconds=0, response_timeout_seconds=60))
    wf = ConductorWorkflow(executor=executor, name=PREFIX + "_payloads", version=1)
    task = SimpleTask(task_def_name=task_type, task_reference_name="t")
    task.input_parameters.update({"marker": "${workflow.input.marker}", "blob": "${workflow.input.blob}"})
    wf.add(task)
    wf.output_parameters({"result": "${t.output.result}", "echoed": "${workflow.input.marker}"})
    executor.register_workflow(wf.to_workflow_def(), overwrite=True)

    input_path = upload("WORKFLOW_INPUT", {"marker": "python-marker", "blob": "x" * 8000})
    workflow_id = workflows.start_workflow(StartWorkflowRequest(name=wf.name, version=1, external_input_payload_storage_path=input_path))
    polled = None
    until = time.time() + 30
    while polled is None and time.time() < until:
        polled = tasks.poll_task(task_type, worker_id="python")
        if polled is None:
            time.sleep(0.1)
    task_input_path = polled.external_input_payload_storage_path
    task_input = download("TASK_INPUT", task_input_path)
    output_path = upload("TASK_OUTPUT", {"result": "python-output-" + "y" * 8000})
    tasks.update_task(TaskResult(workflow_instance_id=workflow_id, task_id=polled.task_id, status=TaskResultStatus.COMPLETED,
                                 output_data={}, external_output_payload_storage_path=output_path))
    done = None
    until = time.time() + 30
    while time.time() < until:
        done = workflows.get_workflow(workflow_id, include_tasks=True)
        if done.status in ("COMPLETED", "FAILED", "TERMINATED"):
            break
        time.sleep(0.1)
    output = download("WORKFLOW_OUTPUT", done.external_output_payload_storage_path)
    return {
        "status": done.status,
        "inputPath": input_path,
        "workflowInputPath": done.external_input_payload_storage_path,
        "workflowInput": done.input,
        "polledInput": polled.input_data,
        "taskInputPath": task_input_path,
        "taskInputMarker": task_input.get("marker"),
        "taskInputBlobLength": len(task_input.get("blob", "")),
        "outputPath": output_path,
        "taskOutputPath": done.tasks[0].external_output_payload_storage_path,
        "workflowOutput": done.output,
        "workflowOutputPath": done.external_output_payload_storage_path,
        "downloadedOutputEchoed": output.get("echoed"),
        "downloadedOutputResultLength": len(output.get("result", "")),
    }


def main():
    results = {}
    for fn in (large_payloads,):
        try:
            results[fn.__name__] = {"ok": True, **fn()}
        except Exception as e:  # reported to jest, which fails with the trace
            results[fn.__name__] = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "trace": traceback.format_exc()}
    print(json.dumps(results, default=str))


if __name__ == "__main__":
    main()
