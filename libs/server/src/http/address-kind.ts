import { type LookupAddress } from 'node:dns';
import { BlockList, type LookupFunction, isIP } from 'node:net';

// A URL the platform fetches on someone's behalf is fetched from inside the deployment: without this
// rule, `http://169.254.169.254/` or `http://redis:6379/` would be theirs to ask.

type Family = 'ipv4' | 'ipv6';

/** IANA special-purpose ranges that are not globally reachable. */
const RANGES: readonly [kind: string, ranges: readonly [string, number, Family][]][] = [
  [
    'unspecified',
    [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  ],
  [
    'loopback',
    [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
      ['fec0::', 10, 'ipv6'],
    ],
  ],
  ['shared (carrier-grade NAT)', [['100.64.0.0', 10, 'ipv4']]],
  [
    'link-local',
    [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  ],
  [
    'reserved',
    [
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'],
      ['100::', 64, 'ipv6'],
      ['2001:db8::', 32, 'ipv6'],
      ['64:ff9b:1::', 48, 'ipv6'],
    ],
  ],
  [
    'multicast',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
];

// net.BlockList matches an IPv4-mapped IPv6 address against the IPv4 ranges.
const BLOCKS = RANGES.map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return [kind, list] as const;
});

export function addressKind(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return undefined;
  const type: Family = family === 4 ? 'ipv4' : 'ipv6';
  return BLOCKS.find(([, list]) => list.check(bare, type))?.[0];
}

export function addressProblem(address: string): string | undefined {
  const kind = addressKind(address);
  return kind ? `${address.replace(/^\[|\]$/g, '')} is ${withArticle(kind)} address` : undefined;
}

export function withArticle(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/**
 * Answers only when every address the name resolves to is public: a mixed answer is how DNS rebinding
 * is tried. Callers still check the peer of the connection.
 */
export function publicAddressLookup(resolve: LookupFunction, refuse: (problem: string) => Error): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, resolved) => {
      if (error) return callback(error, '', 0);
      const addresses = (Array.isArray(resolved) ? resolved : [{ address: resolved, family: 0 }]) as LookupAddress[];
      const refused = addresses.find((entry) => addressKind(entry.address));
      if (refused || addresses.length === 0) {
        const problem = refused
          ? `${hostname} resolves to ${refused.address}, ${withArticle(addressKind(refused.address) ?? '')} address`
          : `${hostname} resolves to no address`;
        return callback(refuse(problem), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}
