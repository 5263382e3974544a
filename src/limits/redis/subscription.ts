import type Redis from 'ioredis';

/**
 * Subscribes `subscriber` to `channel` once its connection is ready. ioredis writes a SUBSCRIBE issued
 * between "connected" and "ready" at once; its INFO ready check then fails in subscriber mode, the
 * client reconnects, and since that connection never was ready it does not resubscribe: the channel is
 * lost without a sign (ioredis 5.11.1, `built/redis/event_handler.js`, closeHandler keeps the
 * subscriptions of a ready connection only). Later reconnects of a ready connection resubscribe by themselves.
 */
export async function subscribeWhenReady(subscriber: Redis, channel: string): Promise<void> {
  while (subscriber.status !== 'ready') {
    if (subscriber.status === 'end') throw new Error(`redis connection closed before subscribing to ${channel}`);
    await new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        subscriber.off('ready', ready);
        subscriber.off('end', ended);
      };
      const ready = (): void => {
        settle();
        resolve();
      };
      const ended = (): void => {
        settle();
        reject(new Error(`redis connection closed before subscribing to ${channel}`));
      };
      subscriber.on('ready', ready);
      subscriber.on('end', ended);
    });
  }
  await subscriber.subscribe(channel);
}
