package dev.baton.sdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.conductor.client.exception.ConductorClientException;
import com.netflix.conductor.client.http.ConductorClient;
import io.orkes.conductor.client.http.OrkesSecretClient;
import io.orkes.conductor.client.model.TagObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Secrets through the official Java client's OrkesSecretClient (org.conductoross:conductor-client).
 *
 * <p>Run by test/sdk/java-secrets.test.ts against a real Baton: {@code java dev.baton.sdk.SecretScenarios <base-url> <prefix>};
 * reports what it observed as one JSON object on stdout's last line, as Scenarios does.
 */
public final class SecretScenarios {
  public static void main(String[] args) throws Exception {
    String base = args.length > 0 ? args[0] : "http://127.0.0.1:8080";
    String prefix = args.length > 1 ? args[1] : "java";
    OrkesSecretClient secrets = new OrkesSecretClient(new ConductorClient(base + "/api"));
    Map<String, Object> report = new LinkedHashMap<>();
    try {
      String key = prefix + "_secret";
      Map<String, Object> seen = new LinkedHashMap<>();
      // The Java client takes the value first: putSecret(value, key).
      secrets.putSecret("java-value with \"quotes\"", key);
      seen.put("got", secrets.getSecret(key));
      seen.put("exists", secrets.secretExists(key));
      seen.put("listed", secrets.listAllSecretNames().contains(key));
      seen.put("grantable", secrets.listSecretsThatUserCanGrantAccessTo().contains(key));
      secrets.setSecretTags(List.of(new TagObject().key("owner").value("java").type(TagObject.TypeEnum.METADATA)), key);
      seen.put("tags", secrets.getSecretTags(key).stream().map(t -> t.getKey() + "=" + t.getValue()).toList());
      secrets.deleteSecretTags(List.of(new TagObject().key("owner").value("java").type(TagObject.TypeEnum.METADATA)), key);
      seen.put("tagsAfter", secrets.getSecretTags(key).size());
      secrets.deleteSecret(key);
      seen.put("existsAfter", secrets.secretExists(key));
      try {
        secrets.getSecret(key);
        seen.put("gone", null);
      } catch (ConductorClientException e) {
        seen.put("gone", e.getStatus());
      }
      seen.put("ok", true);
      report.put("secret_client", seen);
    } catch (Exception e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      report.put("secret_client", Map.of("ok", false, "error", e.getClass().getSimpleName() + ": " + e.getMessage(), "trace", trace.toString()));
    }
    System.out.println(new ObjectMapper().writeValueAsString(report));
    System.exit(0);
  }
}
