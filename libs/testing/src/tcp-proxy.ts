import net from 'node:net';

/** A test can cut it (the server went away) or pause it (the server does not answer; nothing is lost). */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
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

  /** New connections are still accepted. */
  pause(): void {
    this.held ??= [];
  }

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

  /** On the same port. */
  async restore(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  /** Drops the open connections too, as a Redis that died would. */
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
