import { LOGGER, type Logger } from '@fed/observability';
import { Global, Module, type OnModuleDestroy } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditActionInterceptor } from './audit-action.interceptor';
import { AuditLogWriter } from './audit-log-writer';
import { AuditLogEntity } from './audit-log.entity';
import { LogDayCountEntity } from './log-day-count.entity';
import { AuditLogsController } from './audit-logs.controller';
import { AuditLogsRepository } from './audit-logs.repository';
import { AuditTrail } from './audit-trail';

// Admin actions are few: one small INSERT a tick when there are any.
const AUDIT_FLUSH_MS = 500;

/** Global, so a controller in identity, memory or agent records without importing audit's module. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntity, LogDayCountEntity])],
  providers: [
    {
      provide: AuditTrail,
      inject: [DataSource, LOGGER],
      useFactory: (dataSource: DataSource, logger: Logger) =>
        new AuditTrail(
          new AuditLogWriter(dataSource, {
            flushMs: AUDIT_FLUSH_MS,
            onError: (error, bufferedRows) =>
              logger.error({ err: error, bufferedRows }, 'audit log rows could not be written yet; they are kept'),
            onDropped: (rows, reason) => logger.error({ rows, reason }, 'audit log rows dropped'),
          }),
        ),
    },
    { provide: APP_INTERCEPTOR, useClass: AuditActionInterceptor },
  ],
  exports: [AuditTrail],
})
export class AuditTrailModule implements OnModuleDestroy {
  constructor(private readonly trail: AuditTrail) {}

  // Requests have drained by now (the host closes HTTP first): their rows are all buffered.
  async onModuleDestroy(): Promise<void> {
    await this.trail.close();
  }
}

/** `GET /v1/admin/audit-logs` (logs:read), and the trail that fills it. */
@Module({
  imports: [AuditTrailModule],
  controllers: [AuditLogsController],
  providers: [AuditLogsRepository],
})
export class AuditLogsModule {}
