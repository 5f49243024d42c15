import { Module } from '@nestjs/common';
import { LogRetentionJob } from './log-retention.job';

/** The retention of the audit and gateway logs, run by admin-service. */
@Module({ providers: [LogRetentionJob], exports: [LogRetentionJob] })
export class LogRetentionModule {}
