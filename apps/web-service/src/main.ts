import { ConfigError, loadConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { startWebApp } from './web-service';

// The web app's deployable in the distributed stack (docs/web.md, "Deployment"): the build of apps/web and the
// UI resource sandbox on a port of its own. No database, no Redis: it keeps nothing.
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig('web-service');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  const logger = createLogger({ service: 'web-service', level: config.log.level });
  const running = await startWebApp(config, logger);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal }, 'stopping: no new connections, open requests finish');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `web-service failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
