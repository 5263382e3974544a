package dev.baton.sdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.conductor.client.automator.TaskRunnerConfigurer;
import com.netflix.conductor.client.config.ConductorClientConfiguration;
import com.netflix.conductor.client.http.ConductorClient;
import com.netflix.conductor.client.http.MetadataClient;
import com.netflix.conductor.client.http.TaskClient;
import com.netflix.conductor.client.http.WorkflowClient;
import com.netflix.conductor.client.worker.Worker;
import com.netflix.conductor.common.metadata.tasks.TaskDef;
import com.netflix.conductor.common.metadata.tasks.TaskResult;
import com.netflix.conductor.common.metadata.workflow.StartWorkflowRequest;
import com.netflix.conductor.common.metadata.workflow.WorkflowDef;
import com.netflix.conductor.common.metadata.workflow.WorkflowTask;
import com.netflix.conductor.common.run.Workflow;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * External payload storage through the official Java client (org.conductoross:conductor-client) with
 * its payload thresholds on (1 KB here): WorkflowClient uploads a large input before the start,
 * TaskClient downloads a large task input at poll and TaskRunner uploads a large output before the
 * update, WorkflowClient downloads a large workflow output.
 *
 * <p>Run by test/sdk/java-payloads.test.ts: {@code java dev.baton.sdk.PayloadScenarios <base-url> <prefix>};
 * reports what it observed as one JSON object on stdout's last line, as Scenarios does.
 */
public final class PayloadScenarios {
  /** The client's thresholds: 1 KB, external storage on (Conductor's default client keeps it off). */
  private static final ConductorClientConfiguration SMALL_THRESHOLDS = new ConductorClientConfiguration() {
    public int getWorkflowInputPayloadThresholdKB() { return 1; }
    public int getWorkflowInputMaxPayloadThresholdKB() { return 10240; }
    public int getTaskOutputPayloadThresholdKB() { return 1; }
    public int getTaskOutputMaxPayloadThresholdKB() { return 10240; }
    public boolean isExternalPayloadStorageEnabled() { return true; }
    public boolean isEnforceThresholds() { return true; }
  };

  public static void main(String[] args) throws Exception {
    String base = args.length > 0 ? args[0] : "http://127.0.0.1:8080";
    String prefix = args.length > 1 ? args[1] : "java";
    Map<String, Object> report = new LinkedHashMap<>();
    ConductorClient client = new ConductorClient(base + "/api");
    WorkflowClient workflows = new WorkflowClient(client, SMALL_THRESHOLDS);
    TaskClient tasks = new TaskClient(client, SMALL_THRESHOLDS);
    MetadataClient metadata = new MetadataClient(client);
    TaskRunnerConfigurer runner = null;
    try {
      String type = prefix + "_big";
      TaskDef taskDef = new TaskDef(type);
      taskDef.setRetryCount(0);
      taskDef.setResponseTimeoutSeconds(60);
      taskDef.setOwnerEmail("java-sdk@example.com");
      metadata.registerTaskDefs(List.of(taskDef));
      WorkflowDef def = new WorkflowDef();
      def.setName(prefix + "_payloads");
      def.setVersion(1);
      def.setOwnerEmail("java-sdk@example.com");
      WorkflowTask t = new WorkflowTask();
      t.setName(type);
      t.setTaskReferenceName("t");
      t.setType("SIMPLE");
      t.setInputParameters(new LinkedHashMap<>(Map.of("marker", "${workflow.input.marker}", "blob", "${workflow.input.blob}")));
      def.setTasks(List.of(t));
      def.setOutputParameters(new LinkedHashMap<>(Map.of("result", "${t.output.result}", "echoed", "${workflow.input.marker}")));
      metadata.updateWorkflowDefs(List.of(def));

      AtomicReference<Map<String, Object>> seenByWorker = new AtomicReference<>();
      Worker worker = Worker.create(type, task -> {
        Map<String, Object> seen = new LinkedHashMap<>();
        seen.put("marker", task.getInputData().get("marker"));
        Object blob = task.getInputData().get("blob");
        seen.put("blobLength", blob == null ? -1 : blob.toString().length());
        seenByWorker.set(seen);
        TaskResult result = new TaskResult(task);
        result.setStatus(TaskResult.Status.COMPLETED);
        result.getOutputData().put("result", "java-output-" + "y".repeat(8000));
        return result;
      });
      runner = new TaskRunnerConfigurer.Builder(tasks, List.of(worker)).withThreadCount(1).withTaskPollTimeout(100).build();
      runner.init();

      StartWorkflowRequest request = new StartWorkflowRequest();
      request.setName(def.getName());
      request.setVersion(1);
      request.setInput(new LinkedHashMap<>(Map.of("marker", "java-marker", "blob", "x".repeat(8000))));
      String id = workflows.startWorkflow(request);
      Workflow done = null;
      for (long until = System.currentTimeMillis() + 60_000; System.currentTimeMillis() < until; Thread.sleep(100)) {
        Workflow wf = workflows.getWorkflow(id, true);
        if (wf.getStatus().isTerminal()) {
          done = wf;
          break;
        }
      }
      if (done == null) throw new IllegalStateException("the workflow did not end within 60 s");
      Map<String, Object> seen = new LinkedHashMap<>();
      seen.put("status", done.getStatus().name());
      seen.put("inputPath", done.getExternalInputPayloadStoragePath());
      seen.put("input", done.getInput());
      Object result = done.getOutput().get("result");
      seen.put("outputResultLength", result == null ? -1 : result.toString().length());
      seen.put("outputEchoed", done.getOutput().get("echoed"));
      seen.put("outputPath", done.getExternalOutputPayloadStoragePath());
      seen.put("taskOutputPath", done.getTasks().get(0).getExternalOutputPayloadStoragePath());
      seen.put("taskOutput", done.getTasks().get(0).getOutputData());
      seen.put("worker", seenByWorker.get());
      seen.put("ok", true);
      report.put("large_payloads", seen);
    } catch (Exception e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      report.put("large_payloads", Map.of("ok", false, "error", e.getClass().getSimpleName() + ": " + e.getMessage(), "trace", trace.toString()));
    } finally {
      if (runner != null) runner.shutdown();
    }
    System.out.println(new ObjectMapper().writeValueAsString(report));
    System.exit(0);
  }
}
