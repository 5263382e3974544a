"""Users, groups, grants and custom roles through the official Conductor Python SDK (conductor-python).

Run by test/sdk/python-authorization.test.ts against a real Baton with auth on:
`python authorization_scenarios.py <base-url> <prefix> <admin-key-id> <admin-key-secret>`.
Reports what it observed as one JSON object on stdout's last line, as scenarios.py does.
"""
import json
import sys
import traceback

from conductor.client.configuration.configuration import Configuration
from conductor.client.configuration.settings.authentication_settings import AuthenticationSettings
from conductor.client.http.models import StartWorkflowRequest
from conductor.client.http.models.create_or_update_application_request import CreateOrUpdateApplicationRequest
from conductor.client.http.models.create_or_update_role_request import CreateOrUpdateRoleRequest
from conductor.client.http.models.subject_ref import SubjectRef
from conductor.client.http.models.target_ref import TargetRef, TargetType
from conductor.client.http.models.upsert_group_request import UpsertGroupRequest
from conductor.client.http.models.upsert_user_request import UpsertUserRequest
from conductor.client.orkes.models.access_type import AccessType
from conductor.client.orkes_clients import OrkesClients
from conductor.client.workflow.conductor_workflow import ConductorWorkflow
from conductor.client.workflow.task.simple_task import SimpleTask

BASE, PREFIX, KEY_ID, KEY_SECRET = sys.argv[1:5]


def clients_for(key_id, key_secret):
    return OrkesClients(configuration=Configuration(server_api_url=BASE + "/api", authentication_settings=AuthenticationSettings(key_id=key_id, key_secret=key_secret)))


admin = clients_for(KEY_ID, KEY_SECRET)
authz = admin.get_authorization_client()


def status_of(fn):
    try:
        fn()
        return None
    except Exception as e:
        return getattr(e, "status", None) or getattr(e, "code", None) or str(e)


def users_and_groups():
    user, user2, group = PREFIX + "_user", PREFIX + "_user2", PREFIX + "_group"
    created = authz.upsert_user(UpsertUserRequest(name="Py User", roles=["USER"]), user)
    authz.upsert_user(UpsertUserRequest(name="Py User 2", roles=["WORKER"]), user2)
    authz.upsert_group(UpsertGroupRequest(description="py group", roles=["USER"]), group)
    authz.add_user_to_group(group, user)
    authz.add_users_to_group(group, [user2])
    members = sorted(u.id for u in authz.get_users_in_group(group))
    authz.remove_user_from_group(group, user2)
    after_remove = [u.id for u in authz.get_users_in_group(group)]
    authz.remove_users_from_group(group, [user])
    fetched = authz.get_user(user)
    got_group = authz.get_group(group)
    listed_users = [u["id"] if isinstance(u, dict) else u.id for u in authz.list_users()]
    listed_groups = [g["id"] if isinstance(g, dict) else g.id for g in authz.list_groups()]
    authz.delete_group(group)
    authz.delete_user(user)
    authz.delete_user(user2)
    return {
        "created": {"id": created.id, "name": created.name, "roles": [r.name for r in created.roles or []]},
        "members": members, "afterRemove": after_remove, "fetchedName": fetched.name,
        "group": {"id": got_group.id, "description": got_group.description},
        "listed": user in listed_users and group in listed_groups,
        "goneUser": status_of(lambda: authz.get_user(user)), "goneGroup": status_of(lambda: authz.get_group(group)),
    }


def grants():
    user, group, wf = PREFIX + "_grantee", PREFIX + "_grantees", PREFIX + "_granted_wf"
    authz.upsert_user(UpsertUserRequest(name="grantee", roles=["USER"]), user)
    authz.upsert_group(UpsertGroupRequest(description="grantees", roles=["USER"]), group)
    target = TargetRef(TargetType.WORKFLOW_DEF, wf)
    authz.grant_permissions(SubjectRef("USER", user), target, [AccessType.READ, AccessType.EXECUTE])
    authz.grant_permissions(SubjectRef("GROUP", group), target, [AccessType.READ])
    on_target = {k: sorted((s.type, s.id) for s in v) for k, v in authz.get_permissions(target).items()}
    for_user = [(p.target.type, p.target.id, sorted(p.access)) for p in authz.get_granted_permissions_for_user(user)]
    for_group = [(p.target.type, p.target.id, sorted(p.access)) for p in authz.get_granted_permissions_for_group(group)]
    checked = authz.check_permissions(user, "WORKFLOW_DEF", wf)
    authz.remove_permissions(SubjectRef("USER", user), target, [AccessType.READ, AccessType.EXECUTE])
    after = {k: sorted((s.type, s.id) for s in v) for k, v in authz.get_permissions(target).items()}
    return {"onTarget": on_target, "forUser": for_user, "forGroup": for_group, "checked": checked, "after": after}


def grant_decides_start():
    app = authz.create_application(CreateOrUpdateApplicationRequest(name=PREFIX + "_starter"))
    authz.add_role_to_application_user(app.id, "WORKFLOW_MANAGER")
    key = authz.create_access_key(app.id)
    starter = clients_for(key.id, key.secret).get_workflow_client()
    wf = ConductorWorkflow(executor=admin.get_workflow_executor(), name=PREFIX + "_guarded_wf", version=1)
    wf.add(SimpleTask(task_def_name=PREFIX + "_guarded_task", task_reference_name="t"))
    admin.get_workflow_executor().register_workflow(wf.to_workflow_def(), overwrite=True)
    start = lambda: starter.start_workflow(StartWorkflowRequest(name=wf.name, version=1, input={}))
    open_start = status_of(start)
    other = PREFIX + "_other"
    authz.upsert_user(UpsertUserRequest(name="other"), other)
    target = TargetRef(TargetType.WORKFLOW_DEF, wf.name)
    authz.grant_permissions(SubjectRef("USER", other), target, [AccessType.EXECUTE])
    refused = status_of(start)
    authz.grant_permissions(SubjectRef("USER", "app:" + app.id), target, [AccessType.EXECUTE])
    granted = status_of(start)
    return {"open": open_start, "refused": refused, "granted": granted}


def custom_roles():
    name = PREFIX + "_role"
    created = authz.create_role(CreateOrUpdateRoleRequest(name=name, permissions=["READ_WORKFLOW_DEF"]))
    fetched = authz.get_role(name)
    custom = [r.name for r in authz.list_custom_roles()]
    system = sorted(authz.list_system_roles().keys())
    built_in = status_of(lambda: authz.create_role(CreateOrUpdateRoleRequest(name="ADMIN", permissions=[])))
    unknown = status_of(lambda: authz.create_role(CreateOrUpdateRoleRequest(name=PREFIX + "_bad", permissions=["workflow-read"])))
    # A key whose user holds the role gets its permissions: its application holds no role itself.
    app = authz.create_application(CreateOrUpdateApplicationRequest(name=PREFIX + "_role_app"))
    key = authz.create_access_key(app.id)
    mine = clients_for(key.id, key.secret)
    wf = ConductorWorkflow(executor=admin.get_workflow_executor(), name=PREFIX + "_role_wf", version=1)
    wf.add(SimpleTask(task_def_name=PREFIX + "_role_task", task_reference_name="t"))
    admin.get_workflow_executor().register_workflow(wf.to_workflow_def(), overwrite=True)
    read = lambda: mine.get_metadata_client().get_workflow_def(wf.name, 1)
    start = lambda: mine.get_workflow_client().start_workflow(StartWorkflowRequest(name=wf.name, version=1, input={}))
    before = [status_of(read), status_of(start)]
    # The SDK's UpsertUserRequest takes only Orkes' five names: the application's role is how it gives a custom one.
    authz.add_role_to_application_user(app.id, name)
    held = [status_of(read), status_of(start)]
    updated = authz.update_role(name, CreateOrUpdateRoleRequest(name=name, permissions=["READ_WORKFLOW_DEF", "EXECUTE_WORKFLOW_DEF"]))
    widened = [status_of(read), status_of(start)]
    authz.remove_role_from_application_user(app.id, name)
    removed = [status_of(read), status_of(start)]
    authz.add_role_to_application_user(app.id, name)
    authz.delete_role(name)
    after = [status_of(read), status_of(start)]
    gone = status_of(lambda: authz.get_role(name))
    return {
        "created": created,
        "fetched": fetched,
        "listed": name in custom,
        "system": system,
        "builtIn": built_in,
        "unknown": unknown,
        "updated": updated,
        "before": before,
        "held": held,
        "widened": widened,
        "removed": removed,
        "after": after,
        "gone": gone,
    }


def main():
    results = {}
    for fn in (users_and_groups, grants, grant_decides_start, custom_roles):
        try:
            results[fn.__name__] = {"ok": True, **fn()}
        except Exception as e:  # reported to jest, which fails with the trace
            results[fn.__name__] = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "trace": traceback.format_exc()}
    print(json.dumps(results, default=str))


if __name__ == "__main__":
    main()
