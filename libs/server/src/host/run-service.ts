import { type Type } from '@nestjs/common';
import cluster from 'node:cluster';
import { type AppConfig, ConfigError, type HostedApp, loadConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { type RunningService, type ServiceAppOptions } from './create-service-app';
import { endProcess } from './end-process';
import { followPrimary, superviseWorkers } from './worker-processes';

/**
 * On SIGTERM or Ctrl-C drains and exits 0; a second signal hands running work back, a third exits at once.
 * A bad configuration exits 78 (EX_CONFIG). With `workers` above 1 this process is their primary
 * (worker-processes.ts), which loads neither the framework nor function-given `features`, to stay small.
 */
export async function runService<A extends HostedApp>(
  options: Omit<ServiceAppOptions<A>, 'features'> & {
    features: Type[] | (() => Promise<Type[]>);
    onReady?: (service: RunningService<AppConfig<A>>) => void;
    workers?: (config: AppConfig<A>) => number;
  },
): Promise<void> {
  let service: RunningService<AppConfig<A>>;
  // A stop asked for while the worker starts waits for the start.
  let signals = 0;
  const asked: NodeJS.Signals[] = [];
  let onSignal = (signal: NodeJS.Signals) => void asked.push(signal);
  if (cluster.isWorker)
    followPrimary(
      (signal) => onSignal(signal),
      () => signals === 0 && asked.length === 0,
    );
  try {
    const config = options.config ?? loadConfig(options.app);
    const workers = options.workers?.(config) ?? 1;
    if (workers > 1 && cluster.isPrimary) {
      const logger = options.logger ?? createLogger({ service: options.app, level: config.log.level });
      return superviseWorkers({ count: workers, logger });
    }
    const features = typeof options.features === 'function' ? await options.features() : options.features;
    // Required here, not imported: a workers' primary never loads the framework.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createServiceApp } = require('./create-service-app') as typeof import('./create-service-app');
    service = await createServiceApp({ ...options, features, config, inWorker: cluster.isWorker });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return endProcess(78);
    }
    process.stderr.write(
      `${options.app} failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return endProcess(1);
  }

  const { logger } = service;
  logger.info({ url: service.url, edition: service.config.edition }, `${options.app} listening`);
  options.onReady?.(service);

  onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      if (service.hurry()) {
        logger.warn({ signal }, 'second signal: handing running work back now; another one exits at once');
        return;
      }
      logger.warn({ signal }, 'second signal: exiting without draining');
      logger.flush();
      endProcess(130);
      return;
    }
    service.shutdown(signal).then(
      () => endProcess(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush();
        endProcess(1);
      },
    );
  };
  if (!cluster.isWorker) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  asked.splice(0).forEach(onSignal);
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    logger.flush();
    endProcess(1);
  });
}
