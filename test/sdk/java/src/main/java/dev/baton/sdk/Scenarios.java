package dev.baton.sdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.conductor.client.automator.TaskRunnerConfigurer;
import com.netflix.conductor.client.exception.ConductorClientException;
import com.netflix.conductor.client.http.ConductorClient;
import com.netflix.conductor.client.http.MetadataClient;
import com.netflix.conductor.client.http.TaskClient;
import com.netflix.conductor.client.http.WorkflowClient;
import com.netflix.conductor.client.worker.Worker;
import com.netflix.conductor.common.metadata.tasks.Task;
import com.netflix.conductor.common.metadata.tasks.TaskDef;
import com.netflix.conductor.common.metadata.tasks.TaskResult;
import com.netflix.conductor.common.metadata.workflow.RerunWorkflowRequest;
import com.netflix.conductor.common.metadata.workflow.StartWorkflowRequest;
import com.netflix.conductor.common.metadata.workflow.UpgradeWorkflowRequest;
import com.netflix.conductor.common.metadata.workflow.WorkflowDef;
import com.netflix.conductor.common.metadata.workflow.WorkflowTask;
import com.netflix.conductor.common.run.SearchResult;
import com.netflix.conductor.common.run.Workflow;
import com.netflix.conductor.common.run.WorkflowSummary;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.conductoross.conductor.common.model.ReturnStrategy;
import org.conductoross.conductor.common.model.SignalResponse;

/**
 * Baton driven through the official Conductor Java client (org.conductoross:conductor-client).
 *
 * <p>Run by test/sdk/java.test.ts against a real Baton: {@code java dev.baton.sdk.Scenarios <base-url> <prefix>}.
 * Each scenario uses the client's own classes (MetadataClient, WorkflowClient, TaskClient and the
 * TaskRunnerConfigurer worker runtime) and reports what it observed; the jest test asserts on that
 * report (one JSON object on stdout's last line). A scenario that throws is reported with its error.
 */
public final class Scenarios {
  private final WorkflowClient workflows;
  private final TaskClient tasks;
  private final MetadataClient metadata;
  private final String prefix;
  private final String worked;
  private final String manual;
  private final String failing;

  private Scenarios(String base, String prefix) {
    ConductorClient client = new ConductorClient(base + "/api");
    this.workflows = new WorkflowClient(client);
    this.tasks = new TaskClient(client);
    this.metadata = new MetadataClient(client);
    this.prefix = prefix;
    this.worked = prefix + "_worked";
    this.manual = prefix + "_manual";
    this.failing = prefix + "_failing";
  }

  public static void main(String[] args) throws Exception {
    String base = args.length > 0 ? args[0] : "http://127.0.0.1:8080";
    String prefix = args.length > 1 ? args[1] : "java";
    Map<String, Object> report = new Scenarios(base, prefix).runAll();
    System.out.println(new ObjectMapper().writeValueAsString(report));
    // The client's HTTP pool keeps non-daemon threads: exit explicitly once the report is out.
    System.exit(0);
  }

  private Map<String, Object> runAll() {
    Map<String, Object> report = new LinkedHashMap<>();
    run(report, "metadata_task_defs", this::metadataTaskDefs);
    run(report, "metadata_workflow_defs", this::metadataWorkflowDefs);
    // Workers run in the client's own runtime, TaskRunnerConfigurer, for the scenarios that need them.
    Worker doubler = Worker.create(worked, task -> {
      TaskResult result = new TaskResult(task);
      result.setStatus(TaskResult.Status.COMPLETED);
      result.getOutputData().put("doubled", ((Number) task.getInputData().get("n")).intValue() * 2);
      result.getOutputData().put("worker", "java");
      return result;
    });
    Worker refuser = Worker.create(failing, task -> {
      throw new IllegalStateException("java worker refused");
    });
    TaskRunnerConfigurer runner = new TaskRunnerConfigurer.Builder(tasks, List.of(doubler, refuser)).withThreadCount(2).withTaskPollTimeout(100).build();
    runner.init();
    try {
      run(report, "workers_complete_a_workflow", this::workersCompleteAWorkflow);
      run(report, "failing_worker_then_retry_and_restart", this::failingWorkerThenRetryAndRestart);
      run(report, "search_and_correlation", this::searchAndCorrelation);
      run(report, "correlation_batch", this::correlationBatch);
      run(report, "manual_polling_and_updates", this::manualPollingAndUpdates);
      run(report, "task_logs", this::taskLogs);
      run(report, "pause_resume_terminate", this::pauseResumeTerminate);
      run(report, "rerun_from_a_task", this::rerunFromATask);
      run(report, "remove_workflow", this::removeWorkflow);
      run(report, "upgrade_running_workflow", this::upgradeRunningWorkflow);
      run(report, "yield_and_signal", this::yieldAndSignal);
    } finally {
      runner.shutdown();
    }
    return report;
  }

  private static void run(Map<String, Object> report, String name, Callable<Map<String, Object>> scenario) {
    Map<String, Object> entry = new LinkedHashMap<>();
    try {
      entry.put("ok", true);
      entry.putAll(scenario.call());
    } catch (Exception e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      entry.put("ok", false);
      entry.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
      entry.put("trace", trace.toString());
    }
    report.put(name, entry);
  }

  // --- helpers -------------------------------------------------------------------------------

  /** Polls until the supplier returns non-null (generous limit: the machine may be loaded). */
  private static <T> T waitFor(Supplier<T> probe) throws InterruptedException {
    long until = System.currentTimeMillis() + 60_000;
    for (;;) {
      T value = probe.get();
      if (value != null) return value;
      if (System.currentTimeMillis() > until) throw new IllegalStateException("condition not met within 60 s");
      Thread.sleep(100);
    }
  }

  private Workflow waitStatus(String id, Set<Workflow.WorkflowStatus> statuses) throws InterruptedException {
    return waitFor(() -> {
      Workflow wf = workflows.getWorkflow(id, true);
      return statuses.contains(wf.getStatus()) ? wf : null;
    });
  }

  private static final Set<Workflow.WorkflowStatus> ENDED = Set.of(Workflow.WorkflowStatus.COMPLETED, Workflow.WorkflowStatus.FAILED, Workflow.WorkflowStatus.TERMINATED);

  private static TaskDef taskDef(String name, int retryCount, long timeoutSeconds, long responseTimeoutSeconds) {
    TaskDef def = new TaskDef(name);
    def.setRetryCount(retryCount);
    def.setRetryDelaySeconds(0);
    def.setRetryLogic(TaskDef.RetryLogic.FIXED);
    def.setTimeoutSeconds(timeoutSeconds);
    def.setResponseTimeoutSeconds(responseTimeoutSeconds);
    def.setOwnerEmail("java-sdk@example.com");
    return def;
  }

  /** A workflow of SIMPLE tasks t1..tn passing `${workflow.input.n}`, output `last` = the last task's output. */
  private WorkflowDef define(String name, String description, String... taskNames) {
    WorkflowDef def = new WorkflowDef();
    def.setName(name);
    def.setVersion(1);
    def.setDescription(description);
    def.setOwnerEmail("java-sdk@example.com");
    def.setTimeoutSeconds(0);
    List<WorkflowTask> list = new ArrayList<>();
    for (int i = 0; i < taskNames.length; i++) {
      WorkflowTask t = new WorkflowTask();
      t.setName(taskNames[i]);
      t.setTaskReferenceName("t" + (i + 1));
      t.setType("SIMPLE");
      t.setInputParameters(new LinkedHashMap<>(Map.of("n", "${workflow.input.n}")));
      list.add(t);
    }
    def.setTasks(list);
    def.setOutputParameters(new LinkedHashMap<>(Map.of("last", "${t" + taskNames.length + ".output}")));
    metadata.updateWorkflowDefs(List.of(def));
    return def;
  }

  private String start(String name, int n, String correlationId) {
    StartWorkflowRequest request = new StartWorkflowRequest();
    request.setName(name);
    request.setVersion(1);
    request.setInput(new LinkedHashMap<>(Map.of("n", n)));
    request.setCorrelationId(correlationId);
    return workflows.startWorkflow(request);
  }

  private static List<Map<String, Object>> tasksOf(Workflow wf) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Task t : wf.getTasks()) out.add(Map.of("ref", t.getReferenceTaskName(), "status", t.getStatus().name(), "type", t.getTaskType()));
    return out;
  }

  private static Object statusOf(ConductorClientException e) {
    return e.getStatus();
  }

  // --- scenarios -----------------------------------------------------------------------------

  private Map<String, Object> metadataTaskDefs() {
    metadata.registerTaskDefs(List.of(taskDef(worked, 0, 60, 30), taskDef(manual, 1, 0, 600), taskDef(failing, 0, 60, 30)));
    TaskDef before = metadata.getTaskDef(worked);
    TaskDef update = taskDef(worked, 0, 60, 30);
    update.setDescription("java, updated");
    metadata.updateTaskDef(update);
    TaskDef after = metadata.getTaskDef(worked);
    List<String> names = metadata.getAllTaskDefs().stream().map(TaskDef::getName).toList();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("before", before.getDescription());
    out.put("after", after.getDescription());
    out.put("listed", names.containsAll(List.of(worked, manual, failing)));
    out.put("retryCount", metadata.getTaskDef(manual).getRetryCount());
    return out;
  }

  private Map<String, Object> metadataWorkflowDefs() {
    String name = prefix + "_wf_meta";
    WorkflowDef first = define(name, "first", worked);
    first.setVersion(2);
    first.setDescription("second");
    metadata.registerWorkflowDef(first);
    WorkflowDef latest = metadata.getWorkflowDef(name, null);
    WorkflowDef v1 = metadata.getWorkflowDef(name, 1);
    metadata.unregisterWorkflowDef(name, 1);
    Object gone;
    try {
      metadata.getWorkflowDef(name, 1);
      gone = false;
    } catch (ConductorClientException e) {
      gone = statusOf(e);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("latest", Map.of("version", latest.getVersion(), "description", latest.getDescription()));
    out.put("v1", Map.of("version", v1.getVersion(), "description", v1.getDescription(), "tasks", v1.getTasks().stream().map(WorkflowTask::getName).toList()));
    out.put("gone", gone);
    return out;
  }

  private Map<String, Object> workersCompleteAWorkflow() throws InterruptedException {
    String name = prefix + "_wf_workers";
    define(name, null, worked, worked);
    String id = start(name, 21, prefix + "_corr");
    Workflow wf = waitStatus(id, ENDED);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", wf.getStatus().name());
    out.put("output", wf.getOutput());
    out.put("tasks", tasksOf(wf));
    out.put("statusSummary", workflows.getWorkflowStatusSummary(id, true, false).getStatus().name());
    return out;
  }

  private Map<String, Object> failingWorkerThenRetryAndRestart() throws InterruptedException {
    String name = prefix + "_wf_failing";
    define(name, null, failing);
    String id = start(name, 1, null);
    Workflow failed = waitStatus(id, ENDED);
    workflows.retryLastFailedTask(id);
    Workflow again = waitFor(() -> {
      Workflow wf = workflows.getWorkflow(id, true);
      return wf.getStatus() == Workflow.WorkflowStatus.FAILED && wf.getTasks().size() == 2 ? wf : null;
    });
    workflows.restart(id, false);
    Workflow restarted = waitFor(() -> {
      Workflow wf = workflows.getWorkflow(id, true);
      return wf.getStatus() == Workflow.WorkflowStatus.FAILED && wf.getTasks().size() == 1 ? wf : null;
    });
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", failed.getStatus().name());
    out.put("reason", failed.getTasks().get(0).getReasonForIncompletion());
    out.put("afterRetry", tasksOf(again));
    out.put("afterRestart", tasksOf(restarted));
    return out;
  }

  private Map<String, Object> searchAndCorrelation() throws InterruptedException {
    String name = prefix + "_wf_workers";
    SearchResult<WorkflowSummary> found = waitFor(() -> {
      SearchResult<WorkflowSummary> r = workflows.search(0, 10, null, "*", "workflowType IN (" + name + ") AND status IN (COMPLETED)");
      return r.getTotalHits() >= 1 ? r : null;
    });
    List<Workflow> byCorrelation = workflows.getWorkflows(name, prefix + "_corr", true, false);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("totalHits", found.getTotalHits());
    out.put("types", found.getResults().stream().map(WorkflowSummary::getWorkflowType).distinct().toList());
    out.put("byCorrelation", byCorrelation.stream().map(w -> w.getStatus().name()).toList());
    return out;
  }

  private Map<String, Object> correlationBatch() {
    String name = prefix + "_wf_workers";
    Map<String, List<Workflow>> correlated = workflows.getWorkflowsByNamesAndCorrelationIds(List.of(prefix + "_corr"), List.of(name), true, false);
    Map<String, Object> out = new LinkedHashMap<>();
    correlated.forEach((k, v) -> out.put(k, v.stream().map(w -> w.getStatus().name()).toList()));
    return Map.of("correlated", out);
  }

  private Map<String, Object> manualPollingAndUpdates() throws InterruptedException {
    String name = prefix + "_wf_manual";
    define(name, null, manual, manual);
    String id = start(name, 5, null);
    Task polled = waitFor(() -> tasks.pollTask(manual, "java-manual", null));
    TaskResult progress = new TaskResult(polled);
    progress.setStatus(TaskResult.Status.IN_PROGRESS);
    progress.setCallbackAfterSeconds(0);
    tasks.updateTask(progress);
    Task again = waitFor(() -> tasks.pollTask(manual, "java-manual", null));
    TaskResult done = new TaskResult(again);
    done.setStatus(TaskResult.Status.COMPLETED);
    done.getOutputData().put("seen", again.getInputData().get("n"));
    // update-v2 answers with the next task of the same type, as the client's workers use it.
    Task next = tasks.updateTaskV2(done);
    tasks.updateTask(id, "t2", TaskResult.Status.COMPLETED, Map.of("byRef", true));
    Workflow wf = waitStatus(id, ENDED);
    Task got = tasks.getTaskDetails(polled.getTaskId());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sameTask", again.getTaskId().equals(polled.getTaskId()));
    out.put("inputN", polled.getInputData().get("n"));
    out.put("nextRef", next == null ? null : next.getReferenceTaskName());
    out.put("status", wf.getStatus().name());
    out.put("output", wf.getOutput());
    out.put("first", Map.of("status", got.getStatus().name(), "output", got.getOutputData(), "workerId", String.valueOf(got.getWorkerId())));
    return out;
  }

  private Map<String, Object> taskLogs() throws InterruptedException {
    String name = prefix + "_wf_logs";
    define(name, null, manual);
    String id = start(name, 1, null);
    Task polled = waitFor(() -> tasks.pollTask(manual, "java-logs", null));
    tasks.logMessageForTask(polled.getTaskId(), "from java");
    List<String> logs = tasks.getTaskLogs(polled.getTaskId()).stream().map(l -> l.getLog()).toList();
    workflows.terminateWorkflow(id, "logs read");
    return Map.of("logs", logs);
  }

  private Map<String, Object> pauseResumeTerminate() {
    String name = prefix + "_wf_control";
    define(name, null, manual);
    String id = start(name, 1, null);
    workflows.pauseWorkflow(id);
    String paused = workflows.getWorkflow(id, false).getStatus().name();
    workflows.resumeWorkflow(id);
    String resumed = workflows.getWorkflow(id, false).getStatus().name();
    workflows.terminateWorkflow(id, "stopped by java");
    Workflow wf = workflows.getWorkflow(id, true);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("paused", paused);
    out.put("resumed", resumed);
    out.put("status", wf.getStatus().name());
    out.put("reason", wf.getReasonForIncompletion());
    out.put("tasks", tasksOf(wf));
    return out;
  }

  private Map<String, Object> rerunFromATask() throws InterruptedException {
    String name = prefix + "_wf_rerun";
    define(name, null, manual, worked);
    String id = start(name, 3, null);
    tasks.updateTask(id, "t1", TaskResult.Status.COMPLETED, Map.of("first", 1));
    Workflow done = waitStatus(id, ENDED);
    String t1 = done.getTasks().stream().filter(t -> t.getReferenceTaskName().equals("t1")).findFirst().orElseThrow().getTaskId();
    RerunWorkflowRequest rerun = new RerunWorkflowRequest();
    rerun.setReRunFromTaskId(t1);
    rerun.setTaskInput(Map.of("n", 7));
    String rerunId = workflows.rerunWorkflow(id, rerun);
    Task again = waitFor(() -> workflows.getWorkflow(id, true).getTasks().stream().filter(t -> t.getReferenceTaskName().equals("t1") && t.getStatus() == Task.Status.SCHEDULED).findFirst().orElse(null));
    tasks.updateTask(id, "t1", TaskResult.Status.COMPLETED, Map.of("first", 2));
    Workflow after = waitStatus(id, ENDED);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("firstRun", done.getStatus().name());
    out.put("sameId", id.equals(rerunId));
    out.put("rerunInput", again.getInputData());
    out.put("afterRerun", after.getStatus().name());
    out.put("output", after.getOutput());
    return out;
  }

  /** Orkes' upgrade (WorkflowClient.upgradeRunningWorkflow): version 2 adds t0 before the running t1 and t2 after it. */
  private Map<String, Object> upgradeRunningWorkflow() throws InterruptedException {
    String name = prefix + "_wf_upgrade";
    WorkflowDef v2 = define(name, null, manual);
    String id = start(name, 2, null);
    waitFor(() -> workflows.getWorkflow(id, true).getTasks().stream().filter(t -> t.getReferenceTaskName().equals("t1") && t.getStatus() == Task.Status.SCHEDULED).findFirst().orElse(null));
    List<WorkflowTask> tasksOfV2 = new ArrayList<>();
    for (String[] node : new String[][] {{"t0", worked}, {"t1", manual}, {"t2", worked}}) {
      WorkflowTask t = new WorkflowTask();
      t.setName(node[1]);
      t.setTaskReferenceName(node[0]);
      t.setType("SIMPLE");
      t.setInputParameters(new LinkedHashMap<>(Map.of("n", "${workflow.input.n}")));
      tasksOfV2.add(t);
    }
    v2.setVersion(2);
    v2.setTasks(tasksOfV2);
    v2.setOutputParameters(new LinkedHashMap<>(Map.of("skipped", "${t0.output}", "last", "${t2.output}")));
    metadata.updateWorkflowDefs(List.of(v2));
    UpgradeWorkflowRequest upgrade = new UpgradeWorkflowRequest();
    upgrade.setName(name);
    upgrade.setVersion(2);
    upgrade.setTaskOutput(Map.of("t0", Map.of("by", "java")));
    upgrade.setWorkflowInput(Map.of("n", 5));
    workflows.upgradeRunningWorkflow(id, upgrade);
    Workflow upgraded = workflows.getWorkflow(id, true);
    tasks.updateTask(id, "t1", TaskResult.Status.COMPLETED, Map.of("first", 1));
    Workflow done = waitStatus(id, ENDED);
    Object refused = null;
    try {
      workflows.upgradeRunningWorkflow(id, upgrade);
    } catch (ConductorClientException e) {
      refused = statusOf(e);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("version", upgraded.getWorkflowVersion());
    out.put("tasks", tasksOf(upgraded));
    out.put("status", done.getStatus().name());
    out.put("output", done.getOutput());
    out.put("refusedAfterEnd", refused);
    return out;
  }

  private Map<String, Object> removeWorkflow() {
    String name = prefix + "_wf_remove";
    define(name, null, manual);
    String id = start(name, 1, null);
    workflows.terminateWorkflow(id, "to remove");
    workflows.deleteWorkflow(id, false);
    Object removed;
    try {
      workflows.getWorkflow(id, false);
      removed = false;
    } catch (ConductorClientException e) {
      removed = statusOf(e);
    }
    return Map.of("removed", removed);
  }

  /** YIELD (Orkes' operator, no task definition): held IN_PROGRESS until TaskClient.signal ends it. */
  private Map<String, Object> yieldAndSignal() throws InterruptedException {
    String name = prefix + "_wf_yield";
    WorkflowDef def = new WorkflowDef();
    def.setName(name);
    def.setVersion(1);
    def.setOwnerEmail("java-sdk@example.com");
    def.setTimeoutSeconds(0);
    List<WorkflowTask> yields = new ArrayList<>();
    for (String ref : List.of("y1", "y2")) {
      WorkflowTask t = new WorkflowTask();
      t.setName("yield");
      t.setTaskReferenceName(ref);
      t.setType("YIELD");
      t.setInputParameters(new LinkedHashMap<>(Map.of("at", ref)));
      yields.add(t);
    }
    def.setTasks(yields);
    metadata.updateWorkflowDefs(List.of(def));
    String id = start(name, 1, null);
    Workflow waiting = waitFor(() -> {
      Workflow wf = workflows.getWorkflow(id, true);
      return wf.getTasks().isEmpty() ? null : wf;
    });
    List<Task> polled = tasks.batchPollTasksByTaskType("YIELD", "java-sdk", 5, 1);
    SignalResponse first = tasks.signal(id, Task.Status.COMPLETED, Map.of("approved", true), ReturnStrategy.BLOCKING_TASK);
    SignalResponse second = tasks.signal(id, Task.Status.COMPLETED, Map.of("last", 1), ReturnStrategy.TARGET_WORKFLOW);
    Workflow done = waitStatus(id, ENDED);
    String failing = start(name, 1, null);
    waitFor(() -> workflows.getWorkflow(failing, true).getTasks().isEmpty() ? null : true);
    SignalResponse failed = tasks.signal(failing, Task.Status.FAILED, Map.of("why", "no"), ReturnStrategy.TARGET_WORKFLOW);
    Map<String, Object> outputs = new LinkedHashMap<>();
    for (Task t : done.getTasks()) outputs.put(t.getReferenceTaskName(), t.getOutputData());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("waiting", tasksOf(waiting));
    out.put("polled", polled == null ? List.of() : polled.stream().map(Task::getTaskId).toList());
    out.put("first", List.of(first.getResponseType().name(), first.getBlockingTask().getReferenceTaskName()));
    out.put("second", List.of(second.getResponseType().name(), second.getWorkflow().getStatus().name()));
    out.put("status", done.getStatus().name());
    out.put("outputs", outputs);
    out.put("failedStatus", failed.getWorkflow().getStatus().name());
    return out;
  }
}
