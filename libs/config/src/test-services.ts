// Tests only (tools/check-services.cjs uses the same defaults); services read loadConfig().
export interface TestServiceUrls {
  /** May CREATE DATABASE. */
  databaseUrl: string;
  redisUrl: string;
}

export function testServiceUrls(env: Record<string, string | undefined> = process.env): TestServiceUrls {
  return {
    databaseUrl: env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
  };
}
