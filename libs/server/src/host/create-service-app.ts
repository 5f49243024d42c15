import { type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { type Bus, createBus, runQueueMetrics } from '@fed/bus';
import { type AppConfig, type HostConfig, type HostedApp, type ServiceConfig, loadConfig } from '@fed/config';
import {
  Health,
  type Logger,
  Metrics,
  PinoNestLogger,
  createLogger,
  operationalEndpoints,
  requestLogging,
  stopTracing,
} from '@fed/observability';
import { openBlobStore } from '@fed/storage';
import express from 'express';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { AccessLog } from '../access-log/access-log';
import { loggedPath } from '../access-log/logged-request';
import { FastRoutes, serveFast } from '../http/fast-routes';
import { boundedJsonParser } from '../http/json-body';
import { InFlightTracker } from '../http/in-flight-tracker';
import { securityHeaders } from '../http/security-headers';
import { ServiceHostModule } from './service-host.module';
import { ShutdownDrains } from './shutdown-drains';

/** Before the Nest app exists (platform: start the embedded database, migrate). */
export type PrepareHook<C = ServiceConfig> = (
  config: C,
  logger: Logger,
) => Promise<{ config: C; cleanup?: () => Promise<void> }>;

export interface ServiceAppOptions<A extends HostedApp = HostedApp> {
  app: A;
  features: Type[];
  config?: AppConfig<A>;
  prepare?: PrepareHook<AppConfig<A>>;
  logger?: Logger;
  /** One of runService's `workers`: /metrics shows them all. */
  inWorker?: boolean;
}

export interface RunningService<C = HostConfig> {
  nest: INestApplication;
  config: C;
  logger: Logger;
  bus: Bus;
  /** The port may have been 0. */
  url: string;
  /** Feature drains (the agent's running turns) run before HTTP stops taking requests. */
  shutdown(reason?: string): Promise<void>;
  /** A second signal: drains of running work end now. False when none is running. */
  hurry(): boolean;
}

const JSON_BODY_LIMIT = '2mb';
/**
 * Above the proxies' own keep-alive (ingress-nginx, AWS load balancers: 60 s; Node's default is 5 s):
 * a proxy reusing a connection the service is closing gets a reset, and answers a POST with 502.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const RUN_QUEUE_APPS: ReadonlySet<string> = new Set(['chat-service', 'agent-runtime', 'platform']);
// Redis clients retry on their own; one line per interval while Redis is down.
const REDIS_ERROR_LOG_INTERVAL_MS = 10_000;

function throttled(intervalMs: number, log: (error: Error) => void): (error: Error) => void {
  let last = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    log(error);
  };
}

/**
 * Probes are answered before Express builds its request objects: cheap, working even if routing is
 * misconfigured, and out of the access log.
 */
function answerProbesFirst(
  server: Server,
  probes: ReturnType<typeof operationalEndpoints>,
  fast: { routes: FastRoutes; host: Parameters<typeof serveFast>[3] },
  accessLog: AccessLog | undefined,
): void {
  const frameworkListeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) =>
    probes(req, res, () => {
      accessLog?.track(req, res);
      const route = fast.routes.find(req);
      if (route) return serveFast(route, req, res, fast.host);
      frameworkListeners.forEach((listener) => listener(req, res));
    }),
  );
}

export async function createServiceApp<A extends HostedApp>(
  options: ServiceAppOptions<A>,
): Promise<RunningService<AppConfig<A>>> {
  let config = options.config ?? loadConfig(options.app);
  const logger = options.logger ?? createLogger({ service: options.app, level: config.log.level });
  const cleanups: (() => Promise<void>)[] = [];
  const releaseAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => logger.error({ err: error }, 'cleanup failed'));
    }
  };

  try {
    if (options.prepare) {
      const prepared = await options.prepare(config, logger);
      config = prepared.config;
      if (prepared.cleanup) cleanups.push(prepared.cleanup);
    }
    const databaseUrl = config.database.url;
    if (!databaseUrl) throw new Error(`${options.app} has no database: set DATABASE_URL`);

    const bus = createBus({
      redisUrl: config.redis.url,
      keyPrefix: config.redis.keyPrefix,
      onError: throttled(REDIS_ERROR_LOG_INTERVAL_MS, (error) => logger.warn({ err: error }, 'redis connection error')),
    });
    cleanups.push(() => bus.close());
    // Without Redis an instance would miss revocations and cancellations: refuse to start (the
    // orchestrator retries) rather than serve half-connected.
    await bus.ping().catch((error: unknown) => {
      const where = config.redis.url ? new URL(config.redis.url).host : 'the bus';
      throw new Error(
        `Redis at ${where} is not reachable (${error instanceof Error ? error.message : String(error)}); start it or correct REDIS_URL`,
      );
    });
    // A storage root that cannot be made stops the start here.
    const storage = 'storage' in config ? config.storage : undefined;
    const blobs = storage ? await openBlobStore(storage) : undefined;
    if (blobs) cleanups.push(() => blobs.close());
    const health = new Health();
    health.register(
      bus.kind === 'redis' ? { name: 'redis', check: () => bus.ping() } : { name: 'bus', check: () => bus.ping() },
    );
    const metrics = new Metrics(options.app, { acrossWorkers: options.inWorker });
    // Platform runs both queueing and running apps: measured once.
    if (RUN_QUEUE_APPS.has(options.app)) metrics.metric(runQueueMetrics).measure(bus.runQueue);
    const tracker = new InFlightTracker();
    const fastRoutes = new FastRoutes();
    const accessLog = config.http.accessLogEnabled ? new AccessLog(options.app, config.http.trustProxyHops) : undefined;
    const shutdownController = new AbortController();
    const shutdownDrains = new ShutdownDrains();

    const http = express();
    http.disable('x-powered-by');
    http.disable('etag');
    // Brute-force protection counts by req.ip.
    http.set('trust proxy', config.http.trustProxyHops);
    http.use(tracker.middleware());
    http.use(securityHeaders());
    http.use(requestLogging(logger, loggedPath));
    http.use(metrics.httpMiddleware());
    http.use(boundedJsonParser(JSON_BODY_LIMIT));

    const nest = await NestFactory.create(
      ServiceHostModule.forRoot({
        config: { ...config, database: { ...config.database, url: databaseUrl } },
        logger,
        metrics,
        health,
        bus,
        blobStore: blobs?.store,
        shutdownSignal: shutdownController.signal,
        shutdownDrains,
        fastRoutes,
        accessLog,
        features: options.features,
      }),
      new ExpressAdapter(http),
      { logger: new PinoNestLogger(logger), bodyParser: false, abortOnError: false },
    );
    await nest.init();
    const server = nest.getHttpServer() as Server;
    answerProbesFirst(
      server,
      operationalEndpoints(health, metrics),
      {
        routes: fastRoutes,
        host: { tracker, metrics, logger },
      },
      accessLog,
    );
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Above the keep-alive time, as Node's documentation advises, so neither cuts the other short.
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
    await nest.listen(config.http.port, config.http.host);
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;

    let shuttingDown: Promise<void> | undefined;
    const shutdown = (reason = 'shutdown') =>
      (shuttingDown ??= (async () => {
        const started = Date.now();
        logger.info({ reason, inFlight: tracker.inFlight }, 'shutting down: draining open requests');
        health.markShuttingDown();
        // Before the listener closes: in platform a draining agent turn calls the model through it.
        await shutdownDrains.run((error) => logger.error({ err: error }, 'shutdown drain failed'));
        shutdownController.abort();
        server.close();
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.closeIdleConnections();
        const drained = await tracker.drained(config.http.shutdownTimeoutMs);
        clearInterval(sweep);
        if (!drained) {
          logger.warn({ inFlight: tracker.inFlight }, 'drain timeout reached: closing remaining connections');
        }
        server.closeAllConnections();
        await nest.close();
        await releaseAll();
        // Last: the spans of everything above are exported before the process exits.
        await stopTracing();
        logger.info({ durationMs: Date.now() - started }, 'stopped');
        logger.flush();
      })());

    return { nest, config, logger, bus, url, shutdown, hurry: () => shutdownDrains.hurry() };
  } catch (error) {
    await releaseAll();
    throw error;
  }
}
