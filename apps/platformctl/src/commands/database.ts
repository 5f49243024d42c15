import { type ServiceConfig, loadConfig } from '@fed/config';
import { startEmbeddedPostgres } from '@fed/persistence';

/** Runs `work` against DATABASE_URL, or against the embedded database under DATA_DIR when unset. */
export async function withDatabase<T>(work: (url: string, config: ServiceConfig) => Promise<T>): Promise<T> {
  const config = loadConfig('platformctl');
  if (config.database.url) return work(config.database.url, config);
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir });
  try {
    return await work(embedded.url, config);
  } finally {
    await embedded.stop();
  }
}
