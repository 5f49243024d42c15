import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { COUNTERS, type Counters, SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { PeriodicPass } from '@fed/server';
import {
  ACCOUNT_PATH,
  AccountTokenRepository,
  KeyEncryption,
  NotificationsModule,
  signalSessionInvalidations,
  SigningKeysModule,
  UsersModule,
} from '@fed/identity/internal';
import { AccountMailThrottle } from './account-mail-throttle';
import { AccountRepository } from './account.repository';
import { FormCsrf } from './form-csrf';
import { ACCOUNT_SESSION_INVALIDATIONS, PasswordResetService } from './password-reset.service';
import { SignUpController } from './signup.controller';
import { SignUpService } from './signup.service';

const SWEEP_INTERVAL_MS = 60 * 60_000;

/** Deletes the tokens of links a week after they expired: at start, then every hour. */
@Injectable()
class AccountTokensSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly periodic: PeriodicPass<number>;

  constructor(tokens: AccountTokenRepository, @Inject(LOGGER) logger: Logger) {
    this.periodic = new PeriodicPass(() => tokens.sweep(), {
      intervalMs: SWEEP_INTERVAL_MS,
      logger,
      done: (deleted) => (deleted > 0 ? { deleted } : undefined),
      messages: {
        done: 'expired account link tokens deleted',
        failed: 'sweeping expired account link tokens failed; retrying in an hour',
      },
    });
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }
}

/** The account pages of auth-service; the notification queue's worker runs here too. */
@Module({
  imports: [UsersModule, NotificationsModule, SigningKeysModule],
  controllers: [SignUpController],
  providers: [
    AccountRepository,
    AccountTokenRepository,
    SignUpService,
    PasswordResetService,
    AccountTokensSweeper,
    {
      provide: AccountMailThrottle,
      inject: [COUNTERS],
      useFactory: (counters: Counters) => new AccountMailThrottle(counters),
    },
    {
      provide: FormCsrf,
      inject: [KeyEncryption, SERVICE_CONFIG],
      useFactory: (encryption: KeyEncryption, config: ServiceConfig) =>
        new FormCsrf({
          key: encryption.derive('account-form-csrf'),
          path: ACCOUNT_PATH,
          secure: new URL(config.auth.issuer).protocol === 'https:',
        }),
    },
    {
      provide: ACCOUNT_SESSION_INVALIDATIONS,
      inject: [SIGNALS, SERVICE_CONFIG],
      useFactory: (signals: Signals, config: ServiceConfig) => signalSessionInvalidations(signals, config),
    },
  ],
})
export class SignUpModule {}
