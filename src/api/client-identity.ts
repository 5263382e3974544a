import type { IncomingMessage } from 'node:http';
import { principalOf } from '../auth/request-gate';

/**
 * Who a poll comes from, for BATON_MAX_LONG_POLLS_PER_CLIENT: the peer address, and with auth on the
 * access key too, so workers sharing an address (a proxy, a NAT) with their own keys count apart, and
 * one key used across a fleet counts per host. Forwarded-for headers are not trusted.
 */
export function clientOf(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  const key = principalOf(req)?.keyId;
  return key === undefined ? address : `${key}@${address}`;
}
