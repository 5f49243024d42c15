import { noteAuthz } from '@fed/observability';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { AccessLog, CLOSED_BEFORE_RESPONSE } from './access-log';
import { type AccessLogRecord } from './access-log-writer';

class Collected {
  rows: AccessLogRecord[] = [];
  append(row: AccessLogRecord): void {
    this.rows.push(row);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

describe('AccessLog: one row per request, taken when the response closes', () => {
  let server: Server;
  let url: string;
  const sink = new Collected();
  const accessLog = new AccessLog('chat-service', 1);
  accessLog.attach(sink);

  beforeAll(async () => {
    server = createServer((req, res) => {
      accessLog.track(req, res);
      if (req.url?.startsWith('/hang')) return; // never answered: the client goes away
      if (req.url?.startsWith('/denied')) noteAuthz(req, 'deny', 'missing_token');
      res.statusCode = req.url?.startsWith('/denied') ? 401 : 200;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const until = async (count: number) => {
    for (let i = 0; i < 100 && sink.rows.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('records method, host, redacted path, status, duration, the caller behind the trusted proxy, the user agent and authz', async () => {
    sink.rows = [];
    const started = Date.now();
    await fetch(`${url}/denied?code=abc&page=2`, {
      headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7', 'user-agent': 'probe/1.0' },
    });
    await until(1);
    const [row] = sink.rows;
    expect(row).toMatchObject({
      service: 'chat-service',
      method: 'GET',
      host: url.slice('http://'.length),
      path: '/denied?code=[redacted]&page=2',
      user_agent: 'probe/1.0',
      status_code: 401,
      source_ip: '198.51.100.7',
      authz_result: 'deny',
      authz_reason: 'missing_token',
    });
    expect(Date.parse(row?.created_at as string)).toBeGreaterThanOrEqual(started - 5);
    expect(row?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('keeps no source address that is not one (a forged X-Forwarded-For the trusted proxy passed on)', async () => {
    sink.rows = [];
    await fetch(`${url}/public`, { headers: { 'x-forwarded-for': `${'x'.repeat(2000)}` } });
    await until(1);
    expect(sink.rows[0]).toMatchObject({ status_code: 200, source_ip: null });
  });

  it('leaves authz null where no check applied', async () => {
    sink.rows = [];
    await fetch(`${url}/public`);
    await until(1);
    expect(sink.rows[0]).toMatchObject({ status_code: 200, authz_result: null, authz_reason: null });
  });

  it(`records ${CLOSED_BEFORE_RESPONSE} for a client that went away before the answer`, async () => {
    sink.rows = [];
    await new Promise<void>((resolve) => {
      const req = request(`${url}/hang`);
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    await until(1);
    expect(sink.rows[0]).toMatchObject({ path: '/hang', status_code: CLOSED_BEFORE_RESPONSE });
  });

  it('records nothing before the host attached its writer', async () => {
    const detached = new AccessLog('x', 0);
    const res = { once: jest.fn() };
    detached.track({} as never, res as never);
    expect(res.once).not.toHaveBeenCalled();
  });
});
