import type { Difference } from './normalise';

/**
 * Every known difference between Baton and Conductor OSS 3.32.3 that the differential suite
 * (test/oracle) observes. A difference the suite finds must match an entry here (scenario and path)
 * or the scenario fails. docs/differences.md lists the same entries.
 *
 * `fix` says whether the difference is a Baton bug to fix (and then delete the entry) or a choice.
 */
export interface KnownDifference {
  id: string;
  /** Scenario names it shows up in. */
  scenarios: RegExp;
  /** Paths (as `diff` writes them: `wf.tasks[0].outputData.x`) it covers. */
  path: RegExp;
  reason: string;
  fix: 'bug' | 'intended';
  /** Narrows the entry to differences with these values (e.g. only where Conductor has none). */
  when?: (d: Difference) => boolean;
}

const ANY = /./;
const conductorHasNone = (d: Difference) => d.conductor === undefined;

export const DIFFERENCES: KnownDifference[] = [
  // Bookkeeping fields of a task
  {
    id: 'executed-flag',
    scenarios: ANY,
    path: /\.executed$/,
    fix: 'bug',
    reason:
      '`executed`: Conductor sets it when its decider has acted on a finished task and leaves it false on the task whose completion ends the workflow (and on system tasks finished within one decide); Baton sets it on every finished task it has processed. No client decides on it.',
  },
  {
    id: 'system-task-worker-id',
    scenarios: ANY,
    path: /tasks\[\d+\]\.workerId$/,
    when: conductorHasNone,
    fix: 'bug',
    reason:
      'System tasks (INLINE, SET_VARIABLE, SWITCH, FORK, JOIN, TERMINATE, WAIT, EVENT, …) carry the host name of the Baton that ran them as `workerId`; Conductor leaves it unset for tasks no worker polled.',
  },
  {
    id: 'async-system-task-poll-count',
    scenarios: /SUB_WORKFLOW|WAIT with a duration|START_WORKFLOW|FORK_JOIN|event handler starts/,
    path: /tasks\[\d+\]\.pollCount$/,
    fix: 'intended',
    reason:
      "Conductor's system-task workers poll asynchronous system tasks (SUB_WORKFLOW, WAIT with a duration, START_WORKFLOW, JOIN) from a queue, so their `pollCount` is 1; Baton's actors start them directly, without a queue poll (`pollCount` 0).",
  },
  {
    id: 'wait-callback-after',
    scenarios: /WAIT completed|event handler completes/,
    path: /tasks\[\d+\]\.callbackAfterSeconds$/,
    fix: 'intended',
    reason:
      "A WAIT task without a duration parks in Conductor's queue with `callbackAfterSeconds` 2147483647 (Integer.MAX_VALUE); Baton waits on the task itself and keeps 0.",
  },
  {
    id: 'response-timeout-without-definition',
    scenarios: /HTTP task|DYNAMIC task/,
    path: /tasks\[\d+\]\.responseTimeoutSeconds$/,
    fix: 'bug',
    reason:
      'Conductor copies `responseTimeoutSeconds` onto the task only for SIMPLE tasks scheduled directly (0 for HTTP and DYNAMIC); Baton sets it from the task definition or its default (60) on every task.',
  },
  // Task input and names as the mappers build them
  {
    id: 'branch-task-def-name',
    scenarios: /SWITCH|DECISION|FORK_JOIN/,
    path: /tasks\[\d+\]\.taskDefName$|^wf\.failedTaskNames\[\d+\]$/,
    fix: 'bug',
    reason:
      'SWITCH, DECISION, FORK (static and dynamic) and JOIN tasks have their type as `taskDefName` in Conductor (SWITCH, DECISION, FORK, JOIN); Baton uses the name given in the workflow definition (and so in `failedTaskNames` when a JOIN fails).',
  },
  {
    id: 'switch-case-input',
    scenarios: /SWITCH|DECISION/,
    path: /tasks\[0\]\.inputData\.(case|hasChildren|k)$/,
    fix: 'bug',
    reason:
      'Conductor\'s SWITCH/DECISION mapper replaces the task\'s input with `{case: <evaluated value>, hasChildren: "true"}` (DECISION drops the declared parameters); Baton keeps the declared input parameters.',
  },
  {
    id: 'switch-selected-case',
    scenarios: /SWITCH javascript falls to the default/,
    path: /tasks\[0\]\.outputData\.selectedCase$/,
    fix: 'bug',
    reason: 'When no case matches, Conductor\'s SWITCH still reports the evaluated value as `selectedCase` ("small"); Baton reports "defaultCase".',
  },
  {
    id: 'fork-input',
    scenarios: /FORK_JOIN/,
    path: /tasks\[0\]\.inputData(\.forkedTasks|\.forkedTaskDefs\[\d+\]\.(asyncComplete|inputParameters|optional|permissive|startDelay))?$/,
    fix: 'bug',
    reason:
      "A static FORK's input in Conductor is empty (Baton lists `forkedTasks`); in a dynamic fork's `forkedTaskDefs` Conductor serialises every WorkflowTask default (asyncComplete, optional, permissive, startDelay) and the resolved inputParameters, which Baton leaves out.",
  },
  {
    id: 'sub-workflow-input',
    scenarios: /SUB_WORKFLOW/,
    path: /tasks\[\d+\]\.inputData(\.(subWorkflowName|subWorkflowVersion|workflowInput|v))?$/,
    fix: 'bug',
    reason:
      "Conductor's SUB_WORKFLOW mapper sets the task input to `{subWorkflowName, subWorkflowVersion, workflowInput: <declared parameters>}`; Baton keeps the declared parameters as the input.",
  },
  // Reasons and messages
  {
    id: 'inline-error-text',
    scenarios: /INLINE script that throws/,
    path: /(reasonForIncompletion|error)$/,
    fix: 'bug',
    reason:
      'A script error reads "Error evaluating the script `Error: boom`" in Conductor; Baton inserts "JavaScript error during evaluation: " before the message.',
  },
  {
    id: 'http-failure-response',
    scenarios: /HTTP task answered 500/,
    path: /(response|reasonForIncompletion)$/,
    fix: 'intended',
    reason:
      'A failed HTTP task keeps `response` as `{statusCode, reasonPhrase, headers, body}` where Conductor stores the Java exception text, and its reason reads "Failed to invoke HTTP task due to: 500 Internal Server Error: <body>" instead of the Java exception with the request URL.',
  },
  {
    id: 'response-timeout-reason',
    scenarios: /response timeout/,
    path: /tasks\[0\]\.reasonForIncompletion$/,
    fix: 'bug',
    reason:
      'A response timeout reads "responseTimeout: 1 exceeded for the taskId: <id> with Task Definition: <name>" in Conductor; Baton ends it with "with Task Status: IN_PROGRESS".',
  },
  {
    id: 'retry-attempt-keeps-reason',
    scenarios: /FIXED retry|response timeout|retry a failed workflow/,
    path: /tasks\[\d+\]\.reasonForIncompletion$/,
    when: conductorHasNone,
    fix: 'bug',
    reason:
      "A retry attempt (automatic or by `POST /retry`) starts in Baton with the previous attempt's `reasonForIncompletion` and keeps it after completing; Conductor's new attempt has none.",
  },
  // Event handlers
  {
    id: 'complete-task-action-output',
    scenarios: /event handler completes a waiting task/,
    path: /\.(taskId|workflowId)$/,
    fix: 'bug',
    reason:
      "The output a `complete_task` action gives the task lists `taskId` in Baton; Conductor's lists the `workflowId`, `taskRefName` and event keys only when the action named the task by workflow and reference (the extra id also shifts the numbering of the masked `workflowId` after it).",
  },
  {
    id: 'handler-created-by',
    scenarios: /event handler/,
    path: /\.createdBy$/,
    when: conductorHasNone,
    fix: 'intended',
    reason:
      "An event handler records `createdBy` as Orkes does (`app:<application id>` of the caller's key, `anonymous` while auth is off); Conductor OSS has no such field.",
  },
  // Status codes
  {
    id: 'client-mistakes-4xx',
    scenarios: /management|pause and resume|CRUD|versions/,
    path: /^(dup|delAgain|updMissing|resumeDone)$/,
    when: (d) => d.conductor === 500,
    fix: 'intended',
    reason:
      'Client mistakes get 4xx in Baton where Conductor answers 500: adding an event handler that exists (409), deleting or updating one that does not (404), deleting a task or workflow definition that does not exist (404), resuming a completed workflow (409).',
  },
  {
    id: 'async-join-canceled',
    scenarios: /leads to TERMINATE with COMPLETED/,
    path: /^wf\.tasks\[\d+\]\.(outputData|reasonForIncompletion)$/,
    when: (d) => d.baton === undefined,
    fix: 'intended',
    reason:
      'A JOIN still waiting when its workflow ends is canceled in Conductor by its system-task worker afterwards, with the reason "Workflow is in COMPLETED state" and the partial output its last evaluation collected; Baton cancels it with the workflow\'s end, without reason or output.',
  },
  {
    id: 'sub-workflow-chain-ids',
    scenarios: /SUB_WORKFLOW chain/,
    path: /^wf\.tasks\[0\]\.(outputData\.)?subWorkflowId$/,
    fix: 'bug',
    reason:
      "After the retried leaf of a three-level chain completes, Conductor's root document names one execution in its output's `subWorkflowId` and another in its SUB_WORKFLOW task's `subWorkflowId` and output (Conductor merges a child's output, which carries the grandchild's `subWorkflowId`, over the task's output); Baton names the direct child in all three. Cause not traced further.",
  },
  // Skip
  {
    id: 'skip-payload-from-body',
    scenarios: /skip a task/,
    path: /^wf\.tasks\[\d+\]\.(inputData|outputData)$/,
    when: conductorHasNone,
    fix: 'intended',
    reason:
      '`PUT /api/workflow/{id}/skiptask/{ref}` takes its payload (`taskInput`, `taskOutput`) from a JSON body too, as the SDKs send it; Conductor binds it from query parameters only and ignores the body, so its skipped task has neither.',
  },
  {
    id: 'terminate-triggers-failure-workflow',
    scenarios: /terminate with triggerFailureWorkflow/,
    path: /^(failure|wf\.output\.conductor\.failure_workflow)$/,
    fix: 'intended',
    reason:
      "`DELETE /api/workflow/{id}?triggerFailureWorkflow=true` starts the definition's failure workflow in Baton (as the parameter says); Conductor OSS 3.32.3 terminates without starting it.",
  },
  // Failure workflow input
  {
    id: 'failed-workflow-snapshot',
    scenarios: /failureWorkflow|triggerFailureWorkflow/,
    path: /^failure\.input\.failedWorkflow\./,
    fix: 'intended',
    reason:
      "The failure workflow's `input.failedWorkflow` is the failed workflow as each server serialises it: Conductor's carries `failedTaskId`, `previousStatus` and every Task/TaskDef default (asyncComplete, cachedOutput, idempotent, …), Baton's the execution document it serves on `GET /api/workflow/{id}`.",
  },
];

/** The differences no entry explains. */
export function unexplained(scenario: string, diffs: Difference[], known: KnownDifference[] = DIFFERENCES): Difference[] {
  return diffs.filter((d) => !known.some((k) => k.scenarios.test(scenario) && k.path.test(d.path) && (!k.when || k.when(d))));
}
