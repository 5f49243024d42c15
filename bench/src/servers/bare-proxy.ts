import http from 'node:http';
import { pipeline } from 'node:stream';
import { type Dispatcher, Pool } from 'undici';

// The floor of a model gateway: the least a Node pass-through can do. Each request goes to the
// upstream as it came (method, path, body streamed, no parsing) through an undici Pool, and the
// answer's status, content type and body come back as they arrive.
// `node bare-proxy.js <port> <upstream origin> [<port> <upstream origin>...]`: a listener per pair,
// in one process (as one gateway process serves every provider).
const pairs = process.argv.slice(2);
if (pairs.length === 0 || pairs.length % 2 !== 0) {
  process.stderr.write('usage: bare-proxy.js <port> <upstream origin> [<port> <upstream origin>...]\n');
  process.exit(2);
}

function proxyTo(upstream: string): http.Server {
  // As many connections as the gateway's pools open to a provider by default.
  const pool = new Pool(new URL(upstream).origin, { connections: 128, keepAliveTimeout: 30_000 });
  const server = http.createServer((req, res) => {
    const headers: Record<string, string> = {};
    const contentType = req.headers['content-type'];
    const contentLength = req.headers['content-length'];
    if (contentType) headers['content-type'] = contentType;
    if (contentLength) headers['content-length'] = contentLength;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    pool
      .request({
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        path: req.url ?? '/',
        headers,
        body: hasBody ? req : null,
      })
      .then(
        ({ statusCode, headers: answerHeaders, body }) => {
          // The client went away meanwhile (a load generator closing its connections at the end of a run):
          // pipeline() throws at once on a destroyed destination, which would end the process.
          if (res.destroyed) {
            body.dump().catch(() => undefined);
            return;
          }
          res.statusCode = statusCode;
          const answerType = answerHeaders['content-type'];
          if (answerType) res.setHeader('content-type', answerType);
          pipeline(body, res, () => undefined);
        },
        () => {
          res.statusCode = 502;
          res.end();
        },
      );
  });
  server.keepAliveTimeout = 65_000;
  server.once('close', () => void pool.close());
  return server;
}

const servers: http.Server[] = [];
for (let i = 0; i < pairs.length; i += 2) {
  const server = proxyTo(pairs[i + 1] as string);
  servers.push(server);
  server.listen(Number(pairs[i]), '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
  });
}
process.on('SIGTERM', () => {
  let open = servers.length;
  for (const server of servers) {
    server.close(() => {
      if (--open === 0) process.exit(0);
    });
    server.closeIdleConnections();
  }
});
