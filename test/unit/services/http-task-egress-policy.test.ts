import { checkDestination, checkName, EgressRuleError, parseEgressRules, type EgressPolicy } from '../../../src/services/http-task/egress-policy';

const policy = (over: Partial<EgressPolicy> = {}): EgressPolicy => ({ allow: [], deny: [], ownPorts: [8080], localAddresses: ['192.168.7.20'], ...over });
const check = (p: EgressPolicy, address: string, host = address, port = 443) => checkDestination(p, { host, address, port });

describe('default: public unicast only', () => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.1.9', /loopback/],
    ['::1', /loopback/],
    ['169.254.169.254', /linkLocal/],
    ['fe80::1', /linkLocal/],
    ['10.0.0.5', /private/],
    ['172.16.3.4', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['fc00::1', /uniqueLocal/],
    ['fd00:ec2::254', /uniqueLocal/],
    ['100.64.0.1', /carrierGradeNat/],
    ['100.127.255.254', /carrierGradeNat/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['::', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    // IPv4 hidden in IPv6 forms: judged as the IPv4 address they carry
    ['::ffff:127.0.0.1', /127\.0\.0\.1, a loopback/],
    ['::ffff:169.254.169.254', /169\.254\.169\.254, a linkLocal/],
    ['::ffff:a00:1', /10\.0\.0\.1, a private/],
    ['::7f00:1', /ipv4Compatible/],
    ['64:ff9b::7f00:1', /rfc6052/],
    ['2002:7f00:1::', /6to4/],
    ['fec0::1', /deprecatedSiteLocal/],
  ];
  test.each(refused)('%s is refused', (address, why) => {
    const v = check(policy(), address);
    expect(v.allowed).toBe(false);
    if (!v.allowed) {
      expect(v.reason).toMatch(why);
      expect(v.reason).toMatch(/BATON_HTTP_TASK_ALLOW/);
    }
  });

  test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('%s is allowed', (address) => {
    expect(check(policy(), address).allowed).toBe(true);
  });

  test('the reason names the host as written and the address it resolved to', () => {
    const v = check(policy(), '10.1.2.3', 'internal.example.com');
    expect(v).toEqual({ allowed: false, reason: expect.stringContaining('internal.example.com resolves to 10.1.2.3') });
  });
});

describe('allow and deny lists', () => {
  test('an allowed CIDR, address or host opens a refused range', () => {
    const p = policy({ allow: parseEgressRules('127.0.0.1, 10.20.0.0/16, fd00::/8, metadata.internal') });
    expect(check(p, '127.0.0.1', '127.0.0.1', 9000).allowed).toBe(true);
    expect(check(p, '::ffff:127.0.0.1', 'localhost', 9000).allowed).toBe(true);
    expect(check(p, '127.0.0.2').allowed).toBe(false);
    expect(check(p, '10.20.200.1').allowed).toBe(true);
    expect(check(p, '10.21.0.1').allowed).toBe(false);
    expect(check(p, 'fd12::1').allowed).toBe(true);
    expect(check(p, '169.254.169.254', 'metadata.internal').allowed).toBe(true);
    expect(check(p, '169.254.169.254', 'other.internal').allowed).toBe(false);
  });

  test('*.suffix allows subdomains, not the bare name; names compare case-insensitively without the final dot', () => {
    const p = policy({ allow: parseEgressRules('*.svc.cluster.local') });
    expect(check(p, '10.0.0.9', 'Orders.Svc.Cluster.Local.').allowed).toBe(true);
    expect(check(p, '10.0.0.9', 'svc.cluster.local').allowed).toBe(false);
    expect(check(p, '10.0.0.9', 'evilsvc.cluster.local').allowed).toBe(false);
  });

  test('the deny list wins over the allow list and refuses public addresses and names too', () => {
    const p = policy({ allow: parseEgressRules('10.0.0.0/8'), deny: parseEgressRules('10.9.0.0/16, 8.8.8.0/24, *.blocked.example') });
    expect(check(p, '10.9.1.1')).toEqual({ allowed: false, reason: expect.stringContaining('BATON_HTTP_TASK_DENY entry 10.9.0.0/16') });
    expect(check(p, '10.8.1.1').allowed).toBe(true);
    expect(check(p, '8.8.8.8').allowed).toBe(false);
    expect(check(p, '1.1.1.1', 'api.blocked.example').allowed).toBe(false);
    expect(check(p, '::ffff:8.8.8.8').allowed).toBe(false);
  });

  test("Baton's own ports on this machine are refused even when the address is allowed", () => {
    const p = policy({ allow: parseEgressRules('127.0.0.0/8, 192.168.0.0/16, ::1'), ownPorts: [8080, 3500] });
    expect(check(p, '127.0.0.1', 'localhost', 8080)).toEqual({ allowed: false, reason: expect.stringContaining('is Baton itself') });
    expect(check(p, '::1', '::1', 3500).allowed).toBe(false);
    expect(check(p, '192.168.7.20', 'my-host', 8080).allowed).toBe(false);
    expect(check(p, '0.0.0.0', '0.0.0.0', 8080).allowed).toBe(false);
    // Another machine's service on the same port is not Baton.
    expect(check(p, '192.168.7.21', 'peer', 8080).allowed).toBe(true);
    expect(check(p, '127.0.0.1', 'localhost', 8081).allowed).toBe(true);
  });
});

describe('parseEgressRules', () => {
  test('accepts hosts, addresses and CIDR ranges, comma-separated with spaces and empty entries', () => {
    expect(parseEgressRules(' example.com, ,10.0.0.0/8,::1 ,*.corp.example, ::ffff:10.0.0.0/104').map((r) => r.kind)).toEqual([
      'host',
      'cidr',
      'cidr',
      'host',
      'cidr',
    ]);
    expect(parseEgressRules('')).toEqual([]);
    expect(parseEgressRules(undefined)).toEqual([]);
  });

  test('an IPv4-mapped range matches the IPv4 addresses it maps', () => {
    const p = policy({ allow: parseEgressRules('::ffff:10.0.0.0/104') });
    expect(check(p, '10.1.1.1').allowed).toBe(true);
    expect(check(p, '11.1.1.1').allowed).toBe(true); // public anyway
    expect(check(p, '192.168.0.1').allowed).toBe(false);
  });

  test.each(['10.0.0.0/33', '10.0.0/8', '1.2.3', 'http://example.com', 'exa mple.com', '*.', 'fd00::/129'])('"%s" is refused with the entry named', (bad) => {
    expect(() => parseEgressRules(bad)).toThrow(EgressRuleError);
    expect(() => parseEgressRules(bad)).toThrow(bad.trim());
  });
});

describe('only what the allow list names (BATON_HTTP_TASK_ALLOW_ONLY)', () => {
  test('a public address the list does not name is refused; a listed host, address or range is reached', () => {
    const p = policy({ listedOnly: true, allow: parseEgressRules('api.example.com, *.partner.example, 203.0.113.0/24') });
    expect(check(p, '8.8.8.8', 'dns.google')).toEqual({ allowed: false, reason: expect.stringContaining('not listed in BATON_HTTP_TASK_ALLOW') });
    expect(check(p, '93.184.216.34', 'api.example.com').allowed).toBe(true);
    expect(check(p, '93.184.216.35', 'eu.partner.example').allowed).toBe(true);
    expect(check(p, '203.0.113.9', 'anything.example.org').allowed).toBe(true);
  });

  test('a name no host entry matches is refused before resolving when no range is listed', () => {
    const p = policy({ listedOnly: true, allow: parseEgressRules('api.example.com, *.partner.example') });
    for (const name of ['httpbin', 'API.example.com.', 'eu.partner.example', 'PARTNER.example.sub.partner.example'])
      expect(checkName(p, name).allowed).toBe(name !== 'httpbin');
    for (const name of ['partner.example', 'evilapi.example.com', 'api.example.com.evil'])
      expect(checkName(p, name)).toEqual({ allowed: false, reason: expect.stringContaining('not listed in BATON_HTTP_TASK_ALLOW') });
  });

  test('a listed range leaves the decision to the resolved address', () => {
    const p = policy({ listedOnly: true, allow: parseEgressRules('10.0.0.0/8') });
    expect(checkName(p, 'svc.internal').allowed).toBe(true);
    expect(check(p, '10.1.2.3', 'svc.internal').allowed).toBe(true);
    expect(check(p, '11.1.2.3', 'svc.internal').allowed).toBe(false);
  });

  test('without the option a name is decided after resolving, except a denied one', () => {
    const p = policy({ deny: parseEgressRules('*.blocked.example') });
    expect(checkName(p, 'anything.example.org').allowed).toBe(true);
    expect(checkName(p, 'a.blocked.example')).toEqual({ allowed: false, reason: expect.stringContaining('denied by BATON_HTTP_TASK_DENY') });
  });
});
