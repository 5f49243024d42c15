import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from './gateway-error';
import { readBody } from './request-body';

interface Seen {
  body?: string;
  error?: unknown;
  ended: boolean;
}

/** A server whose handler reads each body as the gateway does (after awaiting something first). */
async function withServer(limit: number, work: (port: number, seen: Seen[]) => Promise<void>): Promise<void> {
  const seen: Seen[] = [];
  const server = http.createServer(async (req, res) => {
    const entry: Seen = { ended: false };
    seen.push(entry);
    req.once('end', () => {
      entry.ended = true;
    });
    await Promise.resolve();
    try {
      entry.body = (await readBody(req, limit)).toString('utf8');
      res.end('ok');
    } catch (error) {
      entry.error = error;
      res.statusCode = 413;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await work((server.address() as AddressInfo).port, seen);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Sends the body in the given pieces (a pause between them), with or without Content-Length. */
function send(port: number, agent: http.Agent, pieces: string[], contentLength: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
    const req = http.request(
      { port, host: '127.0.0.1', method: 'POST', agent, headers: contentLength ? { 'content-length': length } : {} },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    void (async () => {
      for (const [index, piece] of pieces.entries()) {
        if (index > 0) await sleep(20);
        req.write(piece);
      }
      req.end();
    })();
  });
}

describe('readBody', () => {
  it('takes a body that came with the headers at once, and the request still ends (keep-alive reuse)', async () => {
    await withServer(1024, async (port, seen) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 3; i++) expect(await send(port, agent, [`{"n":${i},"text":"é"}`], true)).toBe(200);
      agent.destroy();
      await sleep(20);
      expect(seen.map((entry) => entry.body)).toEqual([
        '{"n":0,"text":"é"}',
        '{"n":1,"text":"é"}',
        '{"n":2,"text":"é"}',
      ]);
      expect(seen.every((entry) => entry.ended)).toBe(true);
    });
  });

  it('waits for a body that arrives in several packets, declared or chunked', async () => {
    await withServer(1024, async (port, seen) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      expect(await send(port, agent, ['{"a":', '1}'], true)).toBe(200);
      expect(await send(port, agent, ['{"b":', '2}'], false)).toBe(200);
      agent.destroy();
      expect(seen.map((entry) => entry.body)).toEqual(['{"a":1}', '{"b":2}']);
    });
  });

  it('refuses a body over the limit, declared or as it arrives', async () => {
    await withServer(8, async (port, seen) => {
      const agent = new http.Agent({ keepAlive: false });
      expect(await send(port, agent, ['0123456789'], true)).toBe(413);
      expect(await send(port, agent, ['01234', '56789'], false)).toBe(413);
      expect(seen).toHaveLength(2);
      for (const entry of seen) {
        expect(entry.error).toBeInstanceOf(GatewayError);
        expect((entry.error as GatewayError).code).toBe('request_too_large');
      }
    });
  });
});
