import { Module } from '@nestjs/common';
import { LlmLogsController } from './llm-logs.controller';
import { LlmLogsRepository } from './llm-logs.repository';

/** `GET /v1/admin/llm-logs` (logs:read) over the table agent-runtime writes. */
@Module({
  controllers: [LlmLogsController],
  providers: [LlmLogsRepository],
})
export class LlmLogsModule {}
