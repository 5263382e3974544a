import { createHash } from 'node:crypto';

/**
 * Chooses the host of an actor among the app instances that registered its type. Rendezvous
 * hashing stands in for Dapr's consistent-hash ring: stable, and only actors of a removed or
 * added instance move.
 */
export const chooseHost = <H extends { key: string }>(type: string, id: string, hosts: H[]): H | undefined => {
  let best: H | undefined;
  let bestScore = -1n;
  for (const h of hosts) {
    const score = createHash('sha1').update(`${type}\u0000${id}\u0000${h.key}`).digest().readBigUInt64BE(0);
    if (score > bestScore) {
      best = h;
      bestScore = score;
    }
  }
  return best;
};
