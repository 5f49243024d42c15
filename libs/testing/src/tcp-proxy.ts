import net from 'node:net';

/**
 * A TCP proxy a test can cut, to see how a client behaves when its server (Redis, PostgreSQL) goes away, or
 * pause, to see how it behaves when its server does not answer for a while (nothing is lost: what was sent
 * meanwhile is delivered on resume).
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  /** While paused: what arrived, in order, to be forwarded on resume. */
  private held: (() => void)[] | undefined;
  private readonly server = net.createServer((client) => {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    }
    this.forward(client, upstream);
    this.forward(upstream, client);
  });

  private knownPort: number | undefined;

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(targetUrl: string): Promise<TcpProxy> {
    const { hostname, port } = new URL(targetUrl);
    const proxy = new TcpProxy({ host: hostname, port: Number(port || 6379) });
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    void proxy.port;
    return proxy;
  }

  /** The target URL with its host and port replaced by the proxy's. */
  urlFor(targetUrl: string): string {
    const url = new URL(targetUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private get port(): number {
    this.knownPort ??= (this.server.address() as net.AddressInfo).port;
    return this.knownPort;
  }

  /** Holds everything sent either way (new connections are still accepted) until `resume`. */
  pause(): void {
    this.held ??= [];
  }

  /** Delivers what was held, in order, and forwards again. */
  resume(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const deliver of held) deliver();
  }

  private forward(from: net.Socket, to: net.Socket): void {
    const pass = (deliver: () => void) => (this.held ? this.held.push(deliver) : deliver());
    from.on('data', (data: Buffer) => pass(() => to.write(data)));
    from.on('end', () => pass(() => to.end()));
  }

  /** Accepts connections again, on the same port. */
  async restore(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  /** Refuses new connections and drops the open ones, as a Redis that died would. */
  async cut(): Promise<void> {
    const closed = this.server.listening
      ? new Promise<void>((resolve) => this.server.close(() => resolve()))
      : Promise.resolve();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  close(): Promise<void> {
    return this.cut();
  }
}
