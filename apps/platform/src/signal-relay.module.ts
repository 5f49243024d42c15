import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SIGNALS, type SignalRelay, type Signals, startSignalRelay } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';

/** All-in-one without Redis: platformctl's changes reach the in-process bus through a loopback relay in DATA_DIR. */
@Injectable()
export class PlatformSignalRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay?: SignalRelay;

  constructor(
    @Inject(SIGNALS) private readonly signals: Signals,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // With Redis, platformctl publishes there itself.
    if (this.config.redis.url) return;
    this.relay = await startSignalRelay(this.signals, { dataDir: this.config.dataDir });
    this.logger.info({ url: this.relay.url }, 'signal relay for platformctl listening');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.close();
  }
}

@Module({ providers: [PlatformSignalRelay] })
export class SignalRelayModule {}
