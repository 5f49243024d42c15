import { lookup as dnsLookup } from 'node:dns';
import { type LookupFunction, type Socket } from 'node:net';
import { addressKind, addressProblem, publicAddressLookup } from '@fed/server';
import { Agent, type Dispatcher, buildConnector } from 'undici';

// The classification of addresses lives in libs/server (identity fetches client metadata documents by it too).
export { addressKind, addressProblem };

// An approved URL is fetched from inside the deployment, where `http://169.254.169.254/` or `http://redis:6379/`
// would be reachable: every connection (redirects included) is checked on the address actually connected to, so
// DNS rebinding is refused too.

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

/** undici's connector refusing non-public addresses: literals before connecting, names at lookup, the peer after. */
function guardedConnector(resolve: LookupFunction): buildConnector.connector {
  const connect = buildConnector({
    lookup: publicAddressLookup(resolve, (problem) => new ToolServerAddressError(problem)),
  } as buildConnector.BuildOptions);
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

/** Tool-server connections under one address rule: one undici agent (kept-alive connections), made at first use. */
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
