import { type LookupAddress, lookup as dnsLookup } from 'node:dns';
import { BlockList, type LookupFunction, type Socket, isIP } from 'node:net';
import { Agent, type Dispatcher, buildConnector } from 'undici';

// Which addresses a tool server may be reached at. An approved URL is fetched by agent-runtime and chat-service
// from inside the deployment: without this, `http://169.254.169.254/` or `http://redis:6379/` would be theirs to
// ask. Checked on every connection (redirects included), on the address actually connected to, so a name that
// resolves elsewhere later (DNS rebinding) is refused too.

type Family = 'ipv4' | 'ipv6';

/** The special-purpose ranges (IANA registries) that are not globally reachable, each named for the message. */
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

// net.BlockList matches an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) against the IPv4 ranges.
const BLOCKS = RANGES.map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return [kind, list] as const;
});

/** The kind of non-public range `address` (an IP address) is in (`loopback`, `private`, ...), or undefined. */
export function addressKind(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return undefined;
  const type: Family = family === 4 ? 'ipv4' : 'ipv6';
  return BLOCKS.find(([, list]) => list.check(bare, type))?.[0];
}

/** Says why `address` (an IP address) is not a public one, or undefined when it is. */
export function addressProblem(address: string): string | undefined {
  const kind = addressKind(address);
  return kind ? `${address.replace(/^\[|\]$/g, '')} is ${withArticle(kind)} address` : undefined;
}

function withArticle(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** A connection to a tool server refused by the address rule: lasting, and named in the task and the log. */
export class ToolServerAddressError extends Error {
  readonly code = 'ERR_TOOLSERVER_ADDRESS';

  constructor(problem: string) {
    super(`${problem}: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true`);
    this.name = 'ToolServerAddressError';
  }
}

/** The address refusal behind a failed fetch (undici puts the connector's error in `cause`), if that is what it was. */
export function addressRefusal(error: unknown): ToolServerAddressError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current instanceof ToolServerAddressError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Every address the name resolves to must be public: a mixed answer is how rebinding is tried. */
function checkedLookup(resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, resolved) => {
      if (error) return callback(error, '', 0);
      const addresses = (Array.isArray(resolved) ? resolved : [{ address: resolved, family: 0 }]) as LookupAddress[];
      const refused = addresses.find((entry) => addressKind(entry.address));
      if (refused || addresses.length === 0) {
        const problem = refused
          ? `${hostname} resolves to ${refused.address}, ${withArticle(addressKind(refused.address) ?? '')} address`
          : `${hostname} resolves to no address`;
        return callback(new ToolServerAddressError(problem), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}

/** undici's connector, refusing non-public addresses: literals before connecting, names at lookup, and the peer after. */
function guardedConnector(resolve: LookupFunction): buildConnector.connector {
  const connect = buildConnector({ lookup: checkedLookup(resolve) } as buildConnector.BuildOptions);
  return (options, callback) => {
    const literal = addressProblem(options.hostname);
    if (literal) {
      process.nextTick(() => callback(new ToolServerAddressError(literal), null));
      return;
    }
    connect(options, (error, socket) => {
      if (error) return callback(error, null);
      // The address actually connected to: whatever resolved it, this is where the bytes would go.
      const peer = (socket as Socket).remoteAddress;
      const problem = peer === undefined ? 'the peer has no address' : addressProblem(peer);
      if (problem) {
        (socket as Socket).destroy();
        return callback(new ToolServerAddressError(problem), null);
      }
      return callback(null, socket as Socket);
    });
  };
}

export interface ToolServerNetworkOptions {
  /** TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: loopback, private and link-local addresses may be connected to. */
  allowPrivateAddresses: boolean;
  /** How names are resolved (tests map a name); `dns.lookup` by default. */
  lookup?: LookupFunction;
}

/** The connections to tool servers of one address rule: one undici agent (kept-alive connections), made at first use. */
export class ToolServerNetwork {
  private static readonly shared = new Map<boolean, ToolServerNetwork>();
  private agent?: Agent;

  constructor(private readonly options: ToolServerNetworkOptions) {}

  /** The process-wide network of the rule: every client of tool servers shares its connections. */
  static of(allowPrivateAddresses: boolean): ToolServerNetwork {
    let network = ToolServerNetwork.shared.get(allowPrivateAddresses);
    if (!network) {
      network = new ToolServerNetwork({ allowPrivateAddresses });
      ToolServerNetwork.shared.set(allowPrivateAddresses, network);
    }
    return network;
  }

  get allowPrivateAddresses(): boolean {
    return this.options.allowPrivateAddresses;
  }

  get dispatcher(): Dispatcher {
    this.agent ??= this.options.allowPrivateAddresses
      ? new Agent(this.options.lookup ? { connect: { lookup: this.options.lookup } } : {})
      : new Agent({ connect: guardedConnector(this.options.lookup ?? (dnsLookup as LookupFunction)) });
    return this.agent;
  }

  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.close();
  }
}
