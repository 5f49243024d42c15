import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { DataSource } from 'typeorm';
import { AccountMails } from '../signup/account-mails';
import { AccountTokenRepository } from '../signup/account-token.repository';
import { UserRepository } from '../users/user.repository';
import { BullNotificationQueue } from './bull-notification-queue';
import { LogNotifier } from './log-notifier';
import { MemoryNotificationQueue } from './memory-notification-queue';
import { NotificationDelivery } from './notification-delivery';
import { NOTIFICATION_QUEUE, type NotificationJob, type NotificationQueue } from './notification-queue';
import { NOTIFIER, type Notifier } from './notifier.port';
import { SmtpNotifier } from './smtp-notifier';
import { UserNotifications } from './user-notifications';

type NotifyConfig = Pick<ServiceConfig, 'notify' | 'redis'>;
type DeliveryConfig = Pick<ServiceConfig, 'notify' | 'auth'>;

/** SMTP when SMTP_URL is set, else the log; a URL without a sender stops the start. */
export function notifierFor(config: NotifyConfig, logger: Logger): Notifier {
  const { smtpUrl, smtpFrom } = config.notify;
  if (!smtpUrl) {
    logger.warn('e-mails to users are logged, not sent: set SMTP_URL (and SMTP_FROM) to send them');
    return new LogNotifier(logger);
  }
  if (!smtpFrom) throw new Error('SMTP_FROM must be set when SMTP_URL is (the sender of e-mails to users)');
  return new SmtpNotifier({ url: smtpUrl, from: smtpFrom });
}

/** BullMQ on the bus's Redis when there is one, else in this process; the same retry rule either way. */
export function notificationQueueFor(config: NotifyConfig, logger: Logger): NotificationQueue {
  const policy = { attempts: config.notify.attempts, backoffMs: config.notify.retryDelayMs };
  if (!config.redis.url) return new MemoryNotificationQueue(policy);
  return new BullNotificationQueue({
    ...policy,
    redisUrl: config.redis.url,
    keyPrefix: config.redis.keyPrefix,
    onError: (error) => logger.warn({ err: error }, 'notification queue: redis connection error'),
  });
}

/** Takes queued e-mails from the start of the app until it stops. */
@Injectable()
export class NotificationWorker implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(NOTIFICATION_QUEUE) private readonly queue: NotificationQueue,
    @Inject(NOTIFIER) private readonly notifier: Notifier,
    private readonly delivery: NotificationDelivery,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.queue.consume(
      (job, attempt) => this.delivery.deliver(job, attempt),
      (job: NotificationJob, error: Error) =>
        this.logger.error({ err: error, userId: job.userId, event: job.event }, 'notification given up: not sent'),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const unsent = this.queue instanceof MemoryNotificationQueue ? this.queue.pending : 0;
    if (unsent > 0) this.logger.warn({ unsent }, 'stopping with e-mails to users not yet sent: they are lost');
    await this.queue.close();
    await this.notifier.close();
  }
}

/**
 * Approval and rejection e-mails (spec document 3), and the e-mails of the account pages (sign-up
 * confirmation, password reset). Import it where they are asked for (admin-service, auth-service); the
 * worker runs wherever it is imported: inject UserNotifications and call it after the change.
 */
@Module({
  providers: [
    { provide: NOTIFIER, inject: [SERVICE_CONFIG, LOGGER], useFactory: notifierFor },
    { provide: NOTIFICATION_QUEUE, inject: [SERVICE_CONFIG, LOGGER], useFactory: notificationQueueFor },
    {
      provide: UserNotifications,
      inject: [NOTIFICATION_QUEUE, LOGGER],
      useFactory: (queue: NotificationQueue, logger: Logger) => new UserNotifications(queue, logger),
    },
    {
      provide: NotificationDelivery,
      inject: [DataSource, NOTIFIER, SERVICE_CONFIG, LOGGER],
      useFactory: (dataSource: DataSource, notifier: Notifier, config: DeliveryConfig, logger: Logger) =>
        new NotificationDelivery(
          new UserRepository(dataSource),
          notifier,
          config.notify.locale,
          logger,
          new AccountMails(new AccountTokenRepository(dataSource), config.auth.authUrl),
        ),
    },
    NotificationWorker,
  ],
  exports: [UserNotifications],
})
export class NotificationsModule {}
