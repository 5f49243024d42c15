import { Module } from '@nestjs/common';
import { GatewayModule } from '@fed/gateway';

// Model gateway of document 3: OpenAI- and Anthropic-compatible endpoints under /llm/v1.
@Module({ imports: [GatewayModule] })
export class LlmGatewayModule {}
