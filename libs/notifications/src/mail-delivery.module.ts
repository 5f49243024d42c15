import {
  type DynamicModule,
  type FactoryProvider,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { createEmailQueue, EMAIL_QUEUE, type EmailQueue } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { type EmailJob } from '@fed/contracts';
import { LOGGER, type Logger } from '@fed/observability';
import { LogNotifier } from './log-notifier';
import { MAIL_COMPOSER, type MailComposer, NotificationDelivery } from './notification-delivery';
import { NOTIFIER, type Notifier } from './notifier.port';
import { SmtpNotifier } from './smtp-notifier';

type NotifyConfig = Pick<ServiceConfig, 'notify' | 'redis'>;

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

/** The bus's e-mail queue: BullMQ on the bus's Redis when there is one, else in this process. */
export function emailQueueFor(config: NotifyConfig, logger: Logger): EmailQueue {
  return createEmailQueue({
    attempts: config.notify.attempts,
    backoffMs: config.notify.retryDelayMs,
    redisUrl: config.redis.url,
    keyPrefix: config.redis.keyPrefix,
    onError: (error) => logger.warn({ err: error }, 'notification queue: redis connection error'),
  });
}

@Injectable()
export class NotificationWorker implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(EMAIL_QUEUE) private readonly queue: EmailQueue,
    @Inject(NOTIFIER) private readonly notifier: Notifier,
    private readonly delivery: NotificationDelivery,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.queue.consume(
      (job, attempt) => this.delivery.deliver(job, attempt),
      (job: EmailJob, error: Error) =>
        this.logger.error({ err: error, userId: job.userId, event: job.event }, 'notification given up: not sent'),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const unsent = this.queue.unsent();
    if (unsent > 0) this.logger.warn({ unsent }, 'stopping with e-mails to users not yet sent: they are lost');
    await this.queue.close();
    await this.notifier.close();
  }
}

/** Exports EMAIL_QUEUE; the worker runs wherever this is imported; `composer` writes each e-mail when sent. */
@Module({})
export class MailDeliveryModule {
  static register(composer: Omit<FactoryProvider<MailComposer>, 'provide'>): DynamicModule {
    return {
      module: MailDeliveryModule,
      providers: [
        { ...composer, provide: MAIL_COMPOSER },
        { provide: NOTIFIER, inject: [SERVICE_CONFIG, LOGGER], useFactory: notifierFor },
        { provide: EMAIL_QUEUE, inject: [SERVICE_CONFIG, LOGGER], useFactory: emailQueueFor },
        {
          provide: NotificationDelivery,
          inject: [MAIL_COMPOSER, NOTIFIER, LOGGER],
          useFactory: (mails: MailComposer, notifier: Notifier, logger: Logger) =>
            new NotificationDelivery(mails, notifier, logger),
        },
        NotificationWorker,
      ],
      exports: [EMAIL_QUEUE],
    };
  }
}
