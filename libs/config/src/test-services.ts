// Where tests find the machine's PostgreSQL and Redis. Tests only: services read loadConfig().
export interface TestServiceUrls {
  /** An admin connection that may CREATE DATABASE. */
  databaseUrl: string;
  redisUrl: string;
}

export function testServiceUrls(env: Record<string, string | undefined> = process.env): TestServiceUrls {
  return {
    databaseUrl: env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
  };
}

export const howToStartServices = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
};
