import { howToStartServices, testServiceUrls } from '@fed/config';
import { prepareTestTemplate } from '@fed/persistence/testing';
import net from 'node:net';

// Runs once before all test files: refuse to start without PostgreSQL and Redis (with the command
// that starts them), then build the migrated template database each test file clones.
function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export default async function globalSetup(): Promise<void> {
  const urls = testServiceUrls();
  const missing: string[] = [];
  if (!(await reachable(urls.databaseUrl, 5432))) {
    missing.push(`PostgreSQL is not reachable at ${new URL(urls.databaseUrl).host}. Start it with:\n  ${howToStartServices.postgres}\n  (or set TEST_DATABASE_URL)`);
  }
  if (!(await reachable(urls.redisUrl, 6379))) {
    missing.push(`Redis is not reachable at ${new URL(urls.redisUrl).host}. Start it with:\n  ${howToStartServices.redis}\n  (or set TEST_REDIS_URL)`);
  }
  if (missing.length > 0) throw new Error(`Tests need PostgreSQL and Redis.\n${missing.join('\n')}`);
  await prepareTestTemplate();
}
