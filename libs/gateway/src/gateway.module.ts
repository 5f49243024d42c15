import {
  GatewayLogWriter,
  GuardrailAlertWriter,
  GuardrailEngine,
  LlmGatewayLogEntity,
  loadGuardrailRules,
} from '@fed/audit';
import { AccessTokenVerifier } from '@fed/auth';
import { COUNTERS, type Counters, SIGNALS, type Signals, type Subscription } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger, METRICS, type Metrics } from '@fed/observability';
import { FAST_ROUTES, type FastRoutes, clientAddress } from '@fed/server';
import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyCache } from './access/api-key-cache';
import { networkList } from './access/gateway-principal';
import { GATEWAY_PREFIX, GatewayHandler, gatewayRouteLabel } from './http/gateway-handler';
import { type GatewayGuardrails } from './endpoints/gateway-context';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { ApiKeyEntity } from './keys/api-key.entity';
import { ApiKeyRepository } from './keys/api-key.repository';
import { UsageLimits } from './limits/usage-limits';
import { RoutingSource } from './routing/routing-source';
import { UpstreamClient } from './upstream/upstream-client';
import { TokenCounter } from './usage/token-counter';

const ROUTING_SOURCE = Symbol.for('fed.gateway.RoutingSource');
const LOG_WRITER = Symbol.for('fed.gateway.LogWriter');
const GUARDRAILS = Symbol.for('fed.gateway.Guardrails');

/**
 * The model gateway (spec document 3). The Marketplace edition has none of these endpoints: it serves
 * only virtual keys, the agent's; anyone else gets a 404.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity, LlmGatewayLogEntity])],
  providers: [
    {
      provide: ROUTING_SOURCE,
      inject: [SERVICE_CONFIG, LOGGER],
      useFactory: (config: ServiceConfig, logger: Logger) => RoutingSource.open(config.gateway.routingFile, logger),
    },
    {
      provide: LOG_WRITER,
      inject: [DataSource, SERVICE_CONFIG, LOGGER],
      useFactory: (dataSource: DataSource, config: ServiceConfig, logger: Logger) =>
        new GatewayLogWriter(dataSource, {
          flushMs: config.gateway.logFlushMs,
          onError: (error, bufferedRows) =>
            logger.error({ err: error, bufferedRows }, 'gateway log rows could not be written yet; they are kept'),
          onDropped: (rows) => logger.error({ rows }, 'gateway log buffer full: oldest rows dropped'),
        }),
    },
    {
      provide: GUARDRAILS,
      inject: [DataSource, SERVICE_CONFIG, LOGGER],
      useFactory: (dataSource: DataSource, config: ServiceConfig, logger: Logger): GatewayGuardrails | null => {
        const rules = loadGuardrailRules(config.guardrails.rulesFile).filter((rule) => rule.stages.includes('gateway'));
        if (rules.length === 0) return null;
        const alerts = new GuardrailAlertWriter(dataSource, {
          flushMs: config.gateway.logFlushMs,
          onError: (error, bufferedRows) =>
            logger.warn({ err: error, bufferedRows }, 'guardrail alerts not written yet; retrying'),
        });
        return { engine: new GuardrailEngine(rules), alerts, service: 'llm-gateway' };
      },
    },
  ],
})
export class GatewayModule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly metrics: GatewayMetrics;
  private readonly upstream: UpstreamClient;
  private readonly tokenCounter = new TokenCounter();
  private limits: UsageLimits | undefined;
  private readonly keys: ApiKeyCache;
  private subscription: Subscription | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(FAST_ROUTES) private readonly fastRoutes: FastRoutes,
    @Inject(SIGNALS) private readonly signals: Signals,
    @Inject(COUNTERS) private readonly counters: Counters,
    @Inject(ROUTING_SOURCE) private readonly routing: RoutingSource,
    @Inject(LOG_WRITER) private readonly log: GatewayLogWriter,
    @Inject(GUARDRAILS) private readonly guardrails: GatewayGuardrails | null,
    private readonly tokens: AccessTokenVerifier,
    dataSource: DataSource,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.keys = new ApiKeyCache(new ApiKeyRepository(dataSource));
    this.metrics = new GatewayMetrics(metrics);
    this.upstream = new UpstreamClient(this.metrics);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.tokenCounter.start();
    this.subscription = await this.signals.subscribe('config.changed', (change) => {
      if (change.area === 'gateway.keys') this.keys.invalidate(change.id);
      else if (change.area === 'gateway.routes') void this.routing.reload();
    });
    const { gateway, http } = this.config;
    this.limits = new UsageLimits(this.counters, Date.now, (error) =>
      this.logger.warn({ err: error }, 'gateway limits could not be shared through the counters; retrying'),
    );
    const handler = new GatewayHandler(
      {
        routing: () => this.routing.table,
        upstream: this.upstream,
        limits: this.limits,
        log: this.log,
        logger: this.logger,
        tokens: this.tokenCounter,
        metrics: this.metrics,
        ...(this.guardrails ? { guardrails: this.guardrails } : {}),
      },
      this.keys,
      this.tokens,
      {
        keyPrefix: gateway.keyPrefix,
        serviceName: gateway.serviceName,
        networks: gateway.allowedNetworks ? networkList(gateway.allowedNetworks) : null,
        clientAddress: (req) => clientAddress(req, http.trustProxyHops),
        virtualKeysOnly: this.config.edition === 'marketplace',
      },
    );
    // Outside the log context: its promise hooks would cost every promise of every model call.
    this.fastRoutes.addPrefix(GATEWAY_PREFIX, (req, res) => handler.handle(req, res), gatewayRouteLabel, {
      withLogContext: false,
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.routing.close();
    await this.subscription?.unsubscribe().catch(() => undefined);
    await this.upstream.close();
    await this.tokenCounter.close();
    await this.limits?.close().catch(() => undefined);
    // The host closes HTTP first, so every row is buffered by now.
    await this.log.close();
    await this.guardrails?.alerts.close();
  }
}
