import { apiClient } from '../support/api-client';
import { call, eventually } from '../support/baton';
import { uniqueName } from '../support/names';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { parseExposition } from '../support/prometheus-text';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Metrics and traces of two real replicas (own processes, real daprd, Cassandra, Elasticsearch):
// each serves its own /metrics, and an actor call that daprd routes to the other replica carries
// the caller's trace (traceparent through the sidecars).

engineSuite('distributed profile on real engines', missingRealCluster())('metrics and traces across real replicas', () => {
  let cluster: RealCluster;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cluster = await startRealCluster({ replicas: ['A'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'baton-A' } });
    await cluster.addReplica('B', { OTEL_SERVICE_NAME: 'baton-B' });
  }, 300_000);
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
  }, 120_000);

  test('starts through A whose actors live on B are traced across both, and counted by B', async () => {
    const [A, B] = cluster.replicas;
    const api = apiClient(() => A!.url);
    const name = uniqueName('tele');
    await api.register({ name, tasks: [{ name: uniqueName('tele_t'), taskReferenceName: 'a', type: 'SIMPLE' }] });
    const ids = await Promise.all(Array.from({ length: 16 }, () => api.start(name)));
    const idSet = new Set(ids);
    // A turn run by B for a start that came in at A: same trace, under B's span of the actor call.
    const remote = await eventually(
      async () => receiver.spans.find((s) => s.service === 'baton-B' && s.name === 'actor WorkflowActor.start' && idSet.has(attrOf(s, 'baton.actor.id'))),
      60_000,
      200,
    );
    const inTrace = () => receiver.spans.filter((s) => s.traceId === remote.traceId);
    const describeTrace = () => JSON.stringify(inTrace().map((s) => [s.service, s.name, s.spanId, s.parentSpanId]));
    // A's request span ends after B's turn: it may come in a later export.
    const entry = await eventually(async () => inTrace().find((s) => s.service === 'baton-A' && s.name === 'POST /api/workflow'), 30_000, 200).catch(() => {
      throw new Error(`no span of A in the trace of B's turn: ${describeTrace()}`);
    });
    expect(entry.parentSpanId).toBeFalsy(); // the client sent no traceparent: A's span is the root
    const actorCall = inTrace().find((s) => s.spanId === remote.parentSpanId);
    expect(actorCall).toMatchObject({ service: 'baton-B', name: 'PUT /actors/{type}/{id}/method/{method}' });
    // Its parent is A's request span, or a span of daprd's own when daprd traces (it forwards either way).
    expect(actorCall!.parentSpanId).toBeTruthy();

    // Each replica counts the starts of the executions it hosts; together, every start once.
    const counts = await Promise.all(
      [A!, B!].map(async (r) => {
        const s = parseExposition((await call(r.url, 'GET', '/metrics')).text);
        return s.find((x) => x.name === 'baton_workflow_start_success_total' && x.labels.workflow_name === name)?.value ?? 0;
      }),
    );
    expect(counts[0]! + counts[1]!).toBe(ids.length);
    expect(counts[1]).toBeGreaterThan(0);
  }, 180_000);
});

const attrOf = (s: ReceivedSpan, key: string): string => String(s.attributes.find((a) => a.key === key)?.value.stringValue);
