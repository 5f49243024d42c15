import { type ProcessHandle, cleanEnv, freePort, startProcess } from './processes';

export interface RuntimeProcessPlace {
  databaseUrl: string;
  redisUrl: string;
  /** So that it takes no turns of other tests. */
  keyPrefix: string;
}

/** agent-runtime's built main.js, on a free loopback port. */
export async function startRuntimeProcess(
  place: RuntimeProcessPlace,
  env: Record<string, string>,
): Promise<ProcessHandle> {
  return startProcess(
    'dist/apps/agent-runtime/src/main.js',
    [],
    cleanEnv({
      DATABASE_URL: place.databaseUrl,
      REDIS_URL: place.redisUrl,
      REDIS_KEY_PREFIX: place.keyPrefix,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      ...env,
    }),
  );
}
