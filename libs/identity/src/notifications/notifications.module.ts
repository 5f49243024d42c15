import { Module } from '@nestjs/common';
import { EMAIL_QUEUE, type EmailQueue } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { MailDeliveryModule } from '@fed/notifications';
import { LOGGER, type Logger } from '@fed/observability';
import { DataSource } from 'typeorm';
import { AccountMails } from './account-mails';
import { AccountTokenRepository } from './account-token.repository';
import { UserRepository } from '../users/user.repository';
import { UserMails } from './user-mails';
import { UserNotifications } from './user-notifications';

type MailsConfig = Pick<ServiceConfig, 'notify' | 'auth'>;

/** Status and account-page e-mails (spec document 3); the worker runs wherever this is imported. */
@Module({
  imports: [
    MailDeliveryModule.register({
      inject: [DataSource, SERVICE_CONFIG],
      useFactory: (dataSource: DataSource, config: MailsConfig) =>
        new UserMails(
          new UserRepository(dataSource),
          config.notify.locale,
          new AccountMails(new AccountTokenRepository(dataSource), config.auth.authUrl),
        ),
    }),
  ],
  providers: [
    {
      provide: UserNotifications,
      inject: [EMAIL_QUEUE, LOGGER],
      useFactory: (queue: EmailQueue, logger: Logger) => new UserNotifications(queue, logger),
    },
  ],
  exports: [UserNotifications],
})
export class NotificationsModule {}
