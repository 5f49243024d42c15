import { Module } from '@nestjs/common';
import { LogRetentionJob } from './log-retention.job';

/** The retention of the logs (audit, gateway, LLM, access), run by admin-service. */
@Module({ providers: [LogRetentionJob], exports: [LogRetentionJob] })
export class LogRetentionModule {}
