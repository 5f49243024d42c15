import { type ServiceConfig } from '@fed/config';
import { type Logger } from '@fed/observability';
import { makeOwnerOnly, runMigrations, startEmbeddedPostgres } from '@fed/persistence';
import { type PrepareHook } from '@fed/server';
import { withAgentGatewayKey } from './agent-gateway-key';

// Embedded PostgreSQL serializes its clients: a small pool is enough and avoids queueing inside PGlite.
const EMBEDDED_POOL_SIZE = 4;

/** All-in-one boot: the embedded database when no DATABASE_URL is given, migrations, the agent's gateway key. */
export const prepareAllInOne: PrepareHook = async (config: ServiceConfig, logger: Logger) => {
  let prepared = config;
  let cleanup: (() => Promise<void>) | undefined;
  // DATA_DIR holds keys and blobs even with an external database: owner-only, as the embedded start makes it.
  if (config.database.url) {
    await makeOwnerOnly(config.dataDir);
  } else {
    const started = Date.now();
    // Shared: platformctl uses this database while the platform holds DATA_DIR.
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, shared: true });
    logger.info({ dataDir: config.dataDir, durationMs: Date.now() - started }, 'embedded PostgreSQL started');
    prepared = {
      ...config,
      database: { url: embedded.url, poolSize: Math.min(config.database.poolSize, EMBEDDED_POOL_SIZE) },
    };
    cleanup = () => embedded.stop();
  }
  try {
    const applied = await runMigrations(prepared.database.url as string);
    logger.info(
      { applied },
      applied.length > 0 ? `${applied.length} migrations applied` : 'database schema up to date',
    );
    prepared = await withAgentGatewayKey(prepared);
    // The shared memory's embeddings go through the same gateway with the agent's key unless given their own.
    const { memory, agent } = prepared;
    prepared = { ...prepared, memory: { ...memory, gatewayApiKey: memory.gatewayApiKey ?? agent.gatewayApiKey } };
  } catch (error) {
    await cleanup?.();
    throw error;
  }
  return { config: prepared, cleanup };
};
