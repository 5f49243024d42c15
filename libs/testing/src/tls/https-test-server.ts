import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type HttpsHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A self-signed certificate for `localhost` and 127.0.0.1, made by `openssl`; clients must trust `caFile`. */
export class HttpsTestServer {
  handler: HttpsHandler = (_req, res) => {
    res.statusCode = 404;
    res.end();
  };

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
    readonly caFile: string,
  ) {}

  static async start(): Promise<HttpsTestServer> {
    const dir = mkdtempSync(path.join(tmpdir(), 'fed-https-'));
    const keyFile = path.join(dir, 'key.pem');
    const caFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        caFile,
      ],
      { stdio: 'pipe' },
    );
    const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) });
    const self = new HttpsTestServer(server, dir, caFile);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => self.handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get origin(): string {
    return `https://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  /** Other paths 404. */
  serveJson(pathname: string, document: unknown, headers: Record<string, string> = {}): void {
    this.handler = (req, res) => {
      if (new URL(req.url ?? '/', this.origin).pathname !== pathname) {
        res.statusCode = 404;
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(typeof document === 'string' ? document : JSON.stringify(document));
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
