import { Module } from '@nestjs/common';

// Model gateway of document 3: OpenAI- and Anthropic-compatible endpoints under /llm/v1.
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({})
export class LlmGatewayModule {}
