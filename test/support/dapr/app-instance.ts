import type { Server } from 'node:http';

/** What an app answered on GET /dapr/subscribe, reduced to what delivery needs. */
export interface AppSubscription {
  pubsubname: string;
  topic: string;
  route: string;
  deadLetterTopic?: string;
}

/** One app process behind one sidecar of the double. */
export interface AppInstance {
  /** `host:port` of the app; placement hashes on it. */
  key: string;
  appId: string;
  appHost: string;
  appPort: number;
  daprHttpPort: number;
  status: 'starting' | 'ready' | 'removed';
  /** Actor types from GET /dapr/config. */
  entities: string[];
  /** Idle timeout per hosted type (ms), from actorIdleTimeout / entitiesConfig. */
  idleTimeoutMs: Map<string, number>;
  subscriptions: AppSubscription[];
  server?: Server;
}

export const appUrl = (app: AppInstance, path: string): string => `http://${app.appHost}:${app.appPort}${path}`;
