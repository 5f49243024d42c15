import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';

/** A real HTTP JWKS endpoint on 127.0.0.1, serving whatever `source` returns at request time. */
export class JwksServer {
  /** JWKS requests answered (or refused) so far. */
  requests = 0;
  /** While true, every request gets a 503. */
  down = false;
  url = '';
  private readonly server: Server;

  private constructor(source: () => unknown) {
    this.server = createServer((_request, response) => {
      this.requests++;
      if (this.down) {
        response.writeHead(503).end();
        return;
      }
      const body = source();
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  }

  static async start(source: () => unknown): Promise<JwksServer> {
    const jwksServer = new JwksServer(source);
    await new Promise<void>((resolve) => jwksServer.server.listen(0, '127.0.0.1', resolve));
    const { port } = jwksServer.server.address() as AddressInfo;
    jwksServer.url = `http://127.0.0.1:${port}/federation/auth/v1/jwks`;
    return jwksServer;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}
