import express, { type Request, type Response, type Router } from 'express';
import type { DaprClient } from '@dapr/dapr';
import type { Logger } from 'pino';
import type { EventBus, PublishedEvent } from '../ports';
import { LineageSchema, type Lineage } from '../../model/lineage';
import { requireDaprAppToken } from '../../runtime/dapr/app-token';
import { daprEventName, parseDaprEventName, type DaprTopic } from './dapr-event-name';
import { RecentIds, type DeliveryDedupe } from './delivery-dedupe';
import { TaskCompletionMessageSchema, type TaskCompletionMessage } from './task-completion-message';

type Log = Pick<Logger, 'info' | 'warn' | 'error'>;
type Status = 'SUCCESS' | 'RETRY' | 'DROP';

export interface DaprEventBusOptions {
  client: DaprClient;
  log: Log;
  /** Dapr pub/sub component for Baton's own topics. */
  pubsubName: string;
  /** Topic other services publish task completions on. */
  completionTopic: string;
  /** Topic carrying Baton's own events (e.g. `conductor:...`) between replicas. */
  internalTopic: string;
  /**
   * `dapr:<pubsub>:<topic>` names Baton's event handlers listen to. Read on every GET /dapr/subscribe,
   * which daprd asks once at start: handlers on new topics need a restart (or a Subscription resource).
   */
  externalEvents?: () => string[];
  deadLetterTopic?: string;
  dedupe?: DeliveryDedupe;
  /** CloudEvent `source` of what Baton publishes. */
  source?: string;
  appApiToken?: string;
  maxBodyBytes?: number;
}

export type TaskCompletionHandler = (message: TaskCompletionMessage, eventId: string) => Promise<void>;

interface CloudEvent {
  id: string;
  data: unknown;
  /** From the extension attributes Baton sets on what it publishes to a `dapr:` topic. */
  lineage?: Lineage;
}

const ROUTE_COMPLETIONS = '/dapr/events/completions';
const ROUTE_INTERNAL = '/dapr/events/baton';
const ROUTE_EXTERNAL = '/dapr/events/external';

/** EventBus over a Dapr pub/sub component: publish through the sidecar, receive on subscription routes. */
export class DaprEventBus implements EventBus {
  private eventHandler?: (e: PublishedEvent) => Promise<void>;
  private completionHandler?: TaskCompletionHandler;
  private readonly dedupe: DeliveryDedupe;
  private readonly inFlight = new Set<string>();
  private closed = false;

  constructor(private readonly opts: DaprEventBusOptions) {
    this.dedupe = opts.dedupe ?? new RecentIds();
  }

  async publish(e: PublishedEvent): Promise<void> {
    const target = parseDaprEventName(e.event);
    const topic: DaprTopic = target ?? { pubsub: this.opts.pubsubName, topic: this.opts.internalTopic };
    const data = target ? e.payload : { id: e.id, event: e.event, payload: e.payload, ...(e.lineage ? { lineage: e.lineage } : {}) };
    const workflowId = e.payload.workflowId;
    const cloudEvent = {
      specversion: '1.0',
      id: e.id, // subscribers (and Baton itself) dedupe on it
      source: this.opts.source ?? 'baton',
      type: 'baton.event',
      datacontenttype: 'application/json',
      data,
      // On a topic of its own (its payload is the data) the lineage travels as CloudEvent extension attributes.
      ...(target && e.lineage ? { batonroot: e.lineage.rootWorkflowId, batongeneration: e.lineage.generation } : {}),
    };
    const { error } = await this.opts.client.pubsub.publish(topic.pubsub, topic.topic, cloudEvent, {
      contentType: 'application/cloudevents+json',
      // Kafka keeps one workflow's events in order on one partition; other brokers ignore it.
      metadata: typeof workflowId === 'string' ? { partitionKey: workflowId } : undefined,
    });
    // The SDK logs and returns publish failures instead of throwing.
    if (error) throw new Error(`publish ${e.event} (${e.id}) failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  subscribe(handler: (e: PublishedEvent) => Promise<void>): void {
    this.eventHandler = handler;
  }

  /** Registers the single consumer of task completions published by other services. */
  onTaskCompletion(handler: TaskCompletionHandler): void {
    this.completionHandler = handler;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** GET /dapr/subscribe body (dapr/dapr `pkg/runtime/pubsub/subscriptions.go`). */
  subscriptions(): Record<string, unknown>[] {
    const dead = this.opts.deadLetterTopic ? { deadLetterTopic: this.opts.deadLetterTopic } : {};
    const own = [
      { pubsubname: this.opts.pubsubName, topic: this.opts.completionTopic, routes: { default: ROUTE_COMPLETIONS }, ...dead },
      { pubsubname: this.opts.pubsubName, topic: this.opts.internalTopic, routes: { default: ROUTE_INTERNAL }, ...dead },
    ];
    const external = [...new Set(this.opts.externalEvents?.() ?? [])]
      .map(parseDaprEventName)
      .filter((t): t is DaprTopic => t !== undefined)
      .filter((t) => !(t.pubsub === this.opts.pubsubName && (t.topic === this.opts.completionTopic || t.topic === this.opts.internalTopic)))
      .map((t) => ({ pubsubname: t.pubsub, topic: t.topic, routes: { default: externalRoute(t) } }));
    return [...own, ...external];
  }

  /** Subscription discovery and delivery routes; mount before listen(). */
  router(): Router {
    const r = express.Router();
    const token = requireDaprAppToken(this.opts.appApiToken);
    const body = express.raw({ type: () => true, limit: this.opts.maxBodyBytes ?? 16 * 1024 * 1024 });
    r.get('/dapr/subscribe', token, (_req, res) => {
      res.json(this.subscriptions());
    });
    r.post(ROUTE_COMPLETIONS, token, body, (req, res) => this.deliver(req, res, (ce) => this.onCompletion(ce)));
    r.post(ROUTE_INTERNAL, token, body, (req, res) => this.deliver(req, res, (ce) => this.onInternal(ce)));
    r.post(`${ROUTE_EXTERNAL}/:pubsub/:topic`, token, body, (req, res) => {
      const name = daprEventName({ pubsub: String(req.params.pubsub), topic: String(req.params.topic) });
      return this.deliver(req, res, (ce) => this.onExternal(name, ce));
    });
    return r;
  }

  /** Common delivery protocol: malformed -> DROP, duplicate -> SUCCESS, failure -> RETRY (never a silent ack). */
  private async deliver(req: Request, res: Response, handle: (ce: CloudEvent) => Promise<Status>): Promise<void> {
    const reply = (status: Status): void => {
      res.status(200).json({ status });
    };
    const ce = parseCloudEvent(req.body);
    if (!ce) {
      this.opts.log.warn({ path: req.path }, 'dropping malformed pub/sub message (not a CloudEvent with an id)');
      return reply('DROP');
    }
    if (this.closed) return reply('RETRY');
    const key = `${req.path}|${ce.id}`; // ids are unique per source, so scope them by topic route
    if (this.inFlight.has(key)) return reply('RETRY'); // the first delivery is still running here
    this.inFlight.add(key);
    let claimed = false;
    try {
      if (await this.dedupe.isDone(key)) return reply('SUCCESS');
      if (this.dedupe.begin) {
        claimed = await this.dedupe.begin(key);
        if (!claimed) return reply('RETRY'); // another replica is handling the same id right now
        if (await this.dedupe.isDone(key)) return reply('SUCCESS'); // it finished between the two checks
      }
      const status = await handle(ce);
      if (status === 'SUCCESS') await this.dedupe.markDone(key);
      reply(status);
    } catch (err) {
      this.opts.log.warn({ err, id: ce.id, path: req.path }, 'pub/sub handler failed; asking for redelivery');
      reply('RETRY');
    } finally {
      this.inFlight.delete(key);
      if (claimed) await this.dedupe.end?.(key).catch(() => undefined);
    }
  }

  private async onCompletion(ce: CloudEvent): Promise<Status> {
    const parsed = TaskCompletionMessageSchema.safeParse(decodeJsonString(ce.data));
    if (!parsed.success) {
      this.opts.log.warn({ id: ce.id, issues: parsed.error.issues }, 'dropping malformed task completion message');
      return 'DROP';
    }
    if (!this.completionHandler) throw new Error('no task completion consumer registered yet');
    await this.completionHandler(parsed.data, ce.id);
    return 'SUCCESS';
  }

  private async onInternal(ce: CloudEvent): Promise<Status> {
    const e = decodeJsonString(ce.data) as Partial<PublishedEvent> | undefined;
    if (!e || typeof e.event !== 'string' || !isObject(e.payload)) {
      this.opts.log.warn({ id: ce.id }, 'dropping malformed Baton event');
      return 'DROP';
    }
    const lineage = LineageSchema.safeParse(e.lineage);
    return this.toHandler({
      id: typeof e.id === 'string' ? e.id : ce.id,
      event: e.event,
      payload: e.payload,
      ...(lineage.success ? { lineage: lineage.data } : {}),
    });
  }

  private onExternal(event: string, ce: CloudEvent): Promise<Status> {
    const data = decodeJsonString(ce.data);
    // Event handlers read fields of an object payload; a bare value is wrapped so it is not lost.
    return this.toHandler({ id: ce.id, event, payload: isObject(data) ? data : { value: data }, ...(ce.lineage ? { lineage: ce.lineage } : {}) });
  }

  private async toHandler(e: PublishedEvent): Promise<Status> {
    if (!this.eventHandler) throw new Error('no event consumer registered yet');
    await this.eventHandler(e);
    return 'SUCCESS';
  }
}

const externalRoute = (t: DaprTopic): string => `${ROUTE_EXTERNAL}/${encodeURIComponent(t.pubsub)}/${encodeURIComponent(t.topic)}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON document sent as text/plain arrives as a string `data`; read it as JSON when it is. */
const decodeJsonString = (data: unknown): unknown => {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
};

const parseCloudEvent = (body: unknown): CloudEvent | undefined => {
  let doc: unknown = body;
  if (Buffer.isBuffer(body)) {
    try {
      doc = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  }
  if (!isObject(doc) || typeof doc.id !== 'string' || doc.id === '') return undefined;
  const lineage = LineageSchema.safeParse({ rootWorkflowId: doc.batonroot, generation: doc.batongeneration });
  const extra = lineage.success ? { lineage: lineage.data } : {};
  if (doc.data === undefined && typeof doc.data_base64 === 'string') {
    return { id: doc.id, data: Buffer.from(doc.data_base64, 'base64').toString('utf8'), ...extra };
  }
  return { id: doc.id, data: doc.data, ...extra };
};

/** Composition-root helper: the distributed profile's event bus and its subscription router. */
export const createDaprEventBus = (opts: DaprEventBusOptions): { bus: DaprEventBus; router: Router } => {
  const bus = new DaprEventBus(opts);
  return { bus, router: bus.router() };
};
