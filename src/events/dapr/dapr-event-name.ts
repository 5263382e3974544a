/** Event names of the Dapr sink: `dapr:<pubsub>:<topic>` (the topic may itself contain ':'). */
export interface DaprTopic {
  pubsub: string;
  topic: string;
}

export const parseDaprEventName = (event: string): DaprTopic | undefined => {
  const m = /^dapr:([^:]+):(.+)$/.exec(event);
  return m ? { pubsub: m[1], topic: m[2] } : undefined;
};

export const daprEventName = (t: DaprTopic): string => `dapr:${t.pubsub}:${t.topic}`;
