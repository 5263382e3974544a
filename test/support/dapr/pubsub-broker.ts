import { appUrl, type AppInstance } from './app-instance';
import type { HttpForwarder } from './http-forwarder';

export type CloudEventEnvelope = Record<string, unknown> & { id: string };

export interface DeliveryAttempt {
  id: string;
  pubsub: string;
  topic: string;
  appId: string;
  appPort: number;
  /** SUCCESS, RETRY, DROP as the app answered, or `http <status>` / `error` / `no-subscriber-instance`. */
  outcome: string;
  at: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The pub/sub component of the double (Redis Streams semantics, held in memory): every app-id
 * that subscribed a topic is one consumer group; each message goes to one live instance of the
 * group and is redelivered until the app acks or drops it. That is real daprd with the unbounded
 * inbound retry policy Baton ships (components/resiliency.yaml): without a policy, Dapr 1.18's
 * pubsub.redis acknowledges a message after the app's first RETRY (test/real/dapr-runtime.test.ts).
 */
export class PubSubBroker {
  private closed = false;
  private next = 0;
  readonly attempts: DeliveryAttempt[] = [];
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly apps: () => AppInstance[],
    private readonly http: HttpForwarder,
    private readonly opts: { retryMs: number; appHeaders: () => Record<string, string>; log: (line: string) => void },
  ) {}

  publish(pubsub: string, topic: string, event: CloudEventEnvelope): void {
    const groups = new Set(
      this.apps()
        .filter((a) => a.status !== 'removed' && a.subscriptions.some((s) => s.pubsubname === pubsub && s.topic === topic))
        .map((a) => a.appId),
    );
    for (const appId of groups) {
      const p = this.deliver(appId, pubsub, topic, event).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  close(): void {
    this.closed = true;
  }

  private async deliver(appId: string, pubsub: string, topic: string, event: CloudEventEnvelope): Promise<void> {
    while (!this.closed) {
      const candidates = this.apps().filter(
        (a) => a.appId === appId && a.status === 'ready' && a.subscriptions.some((s) => s.pubsubname === pubsub && s.topic === topic),
      );
      const record = (app: AppInstance | undefined, outcome: string): void => {
        this.attempts.push({ id: event.id, pubsub, topic, appId, appPort: app?.appPort ?? 0, outcome, at: Date.now() });
      };
      if (candidates.length === 0) {
        record(undefined, 'no-subscriber-instance');
        await sleep(this.opts.retryMs);
        continue;
      }
      const app = candidates[this.next++ % candidates.length];
      const sub = app.subscriptions.find((s) => s.pubsubname === pubsub && s.topic === topic)!;
      let outcome: string;
      try {
        const reply = await this.http.send(
          appUrl(app, sub.route),
          'POST',
          { ...this.opts.appHeaders(), 'content-type': 'application/cloudevents+json' },
          Buffer.from(JSON.stringify(event)),
        );
        outcome = reply.status >= 200 && reply.status < 300 ? appStatus(reply.body) : `http ${reply.status}`;
      } catch (err) {
        outcome = 'error';
        this.opts.log(`delivery of ${event.id} to ${app.key} failed: ${String(err)}`);
      }
      record(app, outcome);
      if (outcome === 'SUCCESS') return;
      if (outcome === 'DROP' || outcome === 'http 404') {
        if (sub.deadLetterTopic && sub.deadLetterTopic !== topic) this.publish(pubsub, sub.deadLetterTopic, event);
        return;
      }
      await sleep(this.opts.retryMs); // RETRY, an unknown status, other HTTP errors: redeliver
    }
  }
}

/** A 2xx answer: empty or status-less JSON acks; otherwise its `status` decides. */
const appStatus = (body: Buffer): string => {
  if (body.length === 0) return 'SUCCESS';
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { status?: unknown };
    if (typeof parsed !== 'object' || parsed === null || parsed.status === undefined) return 'SUCCESS';
    const s = String(parsed.status).toUpperCase();
    return s === 'SUCCESS' || s === 'RETRY' || s === 'DROP' ? s : `unknown status ${s}`;
  } catch {
    return 'SUCCESS';
  }
};
