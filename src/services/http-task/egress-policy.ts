import ipaddr from 'ipaddr.js';

// Where an HTTP task may connect. Decided on the resolved address, so a name that resolves to a
// private address is refused as the address itself would be. Pure: no DNS, no clock.

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type EgressRule = { kind: 'cidr'; text: string; range: [Address, number] } | { kind: 'host'; text: string; name: string; subdomains: boolean };

export interface EgressPolicy {
  allow: EgressRule[];
  deny: EgressRule[];
  /** Ports Baton itself listens on (its API, its Dapr sidecar): refused on this machine's addresses, whatever the lists say. */
  ownPorts: number[];
  /** This machine's interface addresses (normalised), beside loopback and unspecified. */
  localAddresses: string[];
  /** Only what `allow` lists may be reached (public addresses included); names it cannot list are refused unresolved. */
  listedOnly?: boolean;
}

export interface Destination {
  /** Host name as written in the URL (or the address itself for an IP literal). */
  host: string;
  /** The resolved address the connection would go to. */
  address: string;
  port: number;
}

export type EgressVerdict = { allowed: true } | { allowed: false; reason: string };

export class EgressRuleError extends Error {}

const normaliseHost = (h: string): string =>
  h
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

function parseAddress(text: string): Address | undefined {
  const t = text.replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(t) || ipaddr.IPv6.isValid(t)) return ipaddr.process(t);
  return undefined;
}

function parseRule(entry: string): EgressRule {
  const text = entry.trim();
  if (text.includes('/')) {
    const strictV4 = ipaddr.IPv4.isValidCIDRFourPartDecimal(text);
    if (!strictV4 && !ipaddr.IPv6.isValidCIDR(text)) throw new EgressRuleError(`"${text}" is not a CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
    let range = ipaddr.parseCIDR(text) as [Address, number];
    // An IPv4-mapped IPv6 range (::ffff:a.b.c.d/96+n) is the IPv4 range it maps.
    if (range[0].kind() === 'ipv6' && (range[0] as ipaddr.IPv6).isIPv4MappedAddress() && range[1] >= 96)
      range = [(range[0] as ipaddr.IPv6).toIPv4Address(), range[1] - 96];
    return { kind: 'cidr', text, range };
  }
  const single = parseAddress(text);
  if (single) return { kind: 'cidr', text, range: [single, single.kind() === 'ipv4' ? 32 : 128] };
  const subdomains = text.startsWith('*.') || text.startsWith('.');
  const name = normaliseHost(text.replace(/^\*?\./, ''));
  // A last label of digits only would be read as an IPv4 address by URL parsing, never as a name.
  if (!/^[a-z0-9]([a-z0-9_-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9_-]*[a-z0-9])?)*$/.test(name) || /(^|\.)\d+$/.test(name))
    throw new EgressRuleError(`"${text}" is neither a host name (optionally *.suffix), an address nor a CIDR range`);
  return { kind: 'host', text, name, subdomains };
}

/** Parses a comma-separated list of host names (`*.example.com` for subdomains), addresses and CIDR ranges. */
export function parseEgressRules(list: string | undefined): EgressRule[] {
  return (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseRule);
}

function matches(rule: EgressRule, host: string, address: Address): boolean {
  if (rule.kind === 'host') return rule.subdomains ? host.endsWith(`.${rule.name}`) : host === rule.name;
  return address.kind() === rule.range[0].kind() && address.match(rule.range);
}

/** The special range an address belongs to, or undefined for an ordinary public unicast address. */
export function specialRange(address: Address): string | undefined {
  const r = address.range();
  if (r !== 'unicast') return r;
  // ::a.b.c.d (IPv4-compatible, deprecated) embeds an IPv4 address some stacks still route to it.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  return undefined;
}

/** Decides one connection: own ports first, then the deny list, the allow list, and the default refusal of special ranges. */
export function checkDestination(policy: EgressPolicy, d: Destination): EgressVerdict {
  const host = normaliseHost(d.host);
  const address = parseAddress(d.address);
  if (!address) return { allowed: false, reason: `${d.address} is not an IP address` };
  const shown = address.toString();
  const range = specialRange(address);
  const isThisMachine = range === 'loopback' || range === 'unspecified' || policy.localAddresses.includes(shown);
  if (isThisMachine && policy.ownPorts.includes(d.port)) return { allowed: false, reason: `${host}:${d.port} (${shown}) is Baton itself` };
  const denied = policy.deny.find((r) => matches(r, host, address));
  if (denied) return { allowed: false, reason: `${host} (${shown}) is denied by BATON_HTTP_TASK_DENY entry ${denied.text}` };
  if (policy.allow.some((r) => matches(r, host, address))) return { allowed: true };
  if (policy.listedOnly) return { allowed: false, reason: `${host} (${shown}) is not listed in BATON_HTTP_TASK_ALLOW (BATON_HTTP_TASK_ALLOW_ONLY)` };
  if (range) return { allowed: false, reason: `${host} resolves to ${shown}, a ${range} address: refused unless BATON_HTTP_TASK_ALLOW lists it` };
  return { allowed: true };
}

/**
 * Decides a host name before it is resolved, so a name no rule could admit costs no DNS query: a denied name, or,
 * with `listedOnly`, a name no allowed host matches while no allowed range could match its addresses.
 */
export function checkName(policy: EgressPolicy, name: string): EgressVerdict {
  const host = normaliseHost(name);
  const named = (r: EgressRule): boolean => r.kind === 'host' && (r.subdomains ? host.endsWith(`.${r.name}`) : host === r.name);
  const denied = policy.deny.find(named);
  if (denied) return { allowed: false, reason: `${host} is denied by BATON_HTTP_TASK_DENY entry ${denied.text}` };
  if (policy.listedOnly && !policy.allow.some((r) => r.kind === 'cidr' || named(r)))
    return { allowed: false, reason: `${host} is not listed in BATON_HTTP_TASK_ALLOW (BATON_HTTP_TASK_ALLOW_ONLY)` };
  return { allowed: true };
}

/** Normalised form of an interface address (IPv4-mapped forms as IPv4, zone ids dropped), for `localAddresses`. */
export function normaliseAddress(text: string): string | undefined {
  return parseAddress(text)?.toString();
}
