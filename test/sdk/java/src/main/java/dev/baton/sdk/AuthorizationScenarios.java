package dev.baton.sdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.conductor.client.exception.ConductorClientException;
import com.netflix.conductor.client.http.ConductorClient;
import io.orkes.conductor.client.ApiClient;
import io.orkes.conductor.client.http.OrkesAuthorizationClient;
import io.orkes.conductor.client.model.AuthorizationRequest;
import io.orkes.conductor.client.model.ConductorUser;
import io.orkes.conductor.client.model.Group;
import io.orkes.conductor.client.model.SubjectRef;
import io.orkes.conductor.client.model.TargetRef;
import io.orkes.conductor.client.model.UpsertGroupRequest;
import io.orkes.conductor.client.model.UpsertUserRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Users, groups and grants through the official Java client's OrkesAuthorizationClient (org.conductoross:conductor-client).
 *
 * <p>Run by test/sdk/java-authorization.test.ts against a real Baton with auth on:
 * {@code java dev.baton.sdk.AuthorizationScenarios <base-url> <prefix> [<key-id> <key-secret>]}; with a key the client signs in
 * with it (Orkes' ApiClient), as a user's program does. Reports what it observed as one JSON object on stdout's last line.
 */
public final class AuthorizationScenarios {
  public static void main(String[] args) throws Exception {
    String base = args.length > 0 ? args[0] : "http://127.0.0.1:8080";
    String prefix = args.length > 1 ? args[1] : "java";
    ConductorClient client = args.length > 3 ? new ApiClient(base + "/api", args[2], args[3]) : new ConductorClient(base + "/api");
    OrkesAuthorizationClient authz = new OrkesAuthorizationClient(client);
    Map<String, Object> report = new LinkedHashMap<>();
    try {
      // Without a key the same call must be refused, or the run below would prove nothing about auth.
      try {
        new OrkesAuthorizationClient(new ConductorClient(base + "/api")).listUsers(false);
        report.put("without_key", Map.of("ok", true, "status", 200));
      } catch (ConductorClientException e) {
        report.put("without_key", Map.of("ok", true, "status", e.getStatus()));
      }
      String user = prefix + "_user";
      String group = prefix + "_group";
      String wf = prefix + "_wf";
      Map<String, Object> seen = new LinkedHashMap<>();
      ConductorUser created = authz.upsertUser(new UpsertUserRequest().name("Java User").roles(List.of(UpsertUserRequest.RolesEnum.USER)), user);
      seen.put("created", List.of(created.getId(), created.getName(), created.getRoles().get(0).getName()));
      Group g = authz.upsertGroup(new UpsertGroupRequest().description("java group").roles(List.of(UpsertGroupRequest.RolesEnum.WORKER)), group);
      seen.put("group", List.of(g.getId(), g.getDescription()));
      authz.addUserToGroup(group, user);
      seen.put("members", authz.getUsersInGroup(group).stream().map(ConductorUser::getId).toList());
      seen.put("userGroups", authz.getUser(user).getGroups().stream().map(Group::getId).toList());
      seen.put("listed", authz.listUsers(false).stream().anyMatch(u -> u.getId().equals(user)) && authz.listGroups().stream().anyMatch(x -> x.getId().equals(group)));

      TargetRef target = new TargetRef().type(TargetRef.TypeEnum.WORKFLOW_DEF).id(wf);
      authz.grantPermissions(new AuthorizationRequest().subject(new SubjectRef().type(SubjectRef.TypeEnum.USER).id(user)).target(target)
          .access(List.of(AuthorizationRequest.AccessEnum.READ, AuthorizationRequest.AccessEnum.EXECUTE)));
      authz.grantPermissions(new AuthorizationRequest().subject(new SubjectRef().type(SubjectRef.TypeEnum.GROUP).id(group)).target(target)
          .access(List.of(AuthorizationRequest.AccessEnum.READ)));
      Map<String, Object> onTarget = new TreeMap<>();
      authz.getPermissions("WORKFLOW_DEF", wf).forEach((access, subjects) -> onTarget.put(access, subjects.stream().map(s -> s.getType() + ":" + s.getId()).sorted().toList()));
      seen.put("onTarget", onTarget);
      seen.put("forUser", authz.getGrantedPermissionsForUser(user).getGrantedAccess().stream().map(a -> a.getTarget().getId() + ":" + a.getAccess()).toList());
      seen.put("forGroup", authz.getGrantedPermissionsForGroup(group).getGrantedAccess().stream().map(a -> a.getTarget().getId() + ":" + a.getAccess()).toList());
      authz.removePermissions(new AuthorizationRequest().subject(new SubjectRef().type(SubjectRef.TypeEnum.USER).id(user)).target(target)
          .access(List.of(AuthorizationRequest.AccessEnum.READ, AuthorizationRequest.AccessEnum.EXECUTE)));
      seen.put("afterRemove", authz.getPermissions("WORKFLOW_DEF", wf).keySet());

      authz.removeUserFromGroup(group, user);
      seen.put("membersAfter", authz.getUsersInGroup(group).size());
      authz.deleteGroup(group);
      authz.deleteUser(user);
      try {
        authz.getUser(user);
        seen.put("gone", null);
      } catch (ConductorClientException e) {
        seen.put("gone", e.getStatus());
      }
      seen.put("ok", true);
      report.put("authorization_client", seen);
    } catch (Exception e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      report.put("authorization_client", Map.of("ok", false, "error", e.getClass().getSimpleName() + ": " + e.getMessage(), "trace", trace.toString()));
    }
    System.out.println(new ObjectMapper().writeValueAsString(report));
    System.exit(0);
  }
}
