export * from './log-notifier';
export * from './mail-delivery.module';
export * from './notification-delivery';
export * from './notifier.port';
export * from './smtp-notifier';
