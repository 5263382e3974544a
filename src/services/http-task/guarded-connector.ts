import dns from 'node:dns/promises';
import net from 'node:net';
import { buildConnector } from 'undici';
import type { Destination, EgressVerdict } from './egress-policy';

// The one place an HTTP task's socket is opened. The name is resolved once here, every address is
// checked against the egress policy, and the socket goes to that exact address: a DNS answer that
// changes between the check and the connect (rebinding) cannot move the call elsewhere. Redirects
// open their connections through the same connector, so every hop is checked again.

export class EgressRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

export class ConnectTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectTimeoutError';
  }
}

/** Every address of a host name, as the system resolver answers (hosts file included). */
export type ResolveHost = (host: string) => Promise<string[]>;

export const systemResolve: ResolveHost = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface GuardOptions {
  /** A host name, before it is resolved. */
  checkName?(host: string): EgressVerdict;
  check(d: Destination): EgressVerdict;
  /** Limit of the name resolution and of the TCP (and TLS) handshake, each. */
  connectTimeoutMs: number;
  resolve?: ResolveHost;
}

/** An undici connector that refuses destinations the policy refuses and connects to the checked address. */
export function guardedConnector(o: GuardOptions): buildConnector.connector {
  const base = buildConnector({ timeout: o.connectTimeoutMs });
  const resolve = o.resolve ?? systemResolve;
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const named = net.isIP(host) ? undefined : o.checkName?.(host);
    if (named && !named.allowed) {
      callback(new EgressRefusedError(named.reason), null);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const addresses = net.isIP(host)
      ? Promise.resolve([host])
      : Promise.race([
          resolve(host),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new ConnectTimeoutError(`resolving ${host} took longer than ${o.connectTimeoutMs} ms`)), o.connectTimeoutMs);
          }),
        ]);
    addresses.then(
      (list) => {
        clearTimeout(timer);
        let refusal: string | undefined;
        for (const address of list) {
          const verdict = o.check({ host, address, port });
          if (verdict.allowed) {
            // TLS still verifies the certificate against the name, not the address.
            base({ ...options, hostname: address, servername: options.servername ?? (net.isIP(host) ? undefined : host) }, callback);
            return;
          }
          refusal ??= verdict.reason;
        }
        callback(new EgressRefusedError(refusal ?? `${host} has no address`), null);
      },
      (err: Error) => {
        clearTimeout(timer);
        callback(err, null);
      },
    );
  };
}
