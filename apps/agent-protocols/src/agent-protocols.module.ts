import { Module } from '@nestjs/common';
import { A2aModule, McpModule } from '@fed/protocols';

// Document 3's A2A and MCP endpoints and agent card over the chat turn pipeline (libs/protocols); shared host.
@Module({
  imports: [A2aModule, McpModule],
})
export class AgentProtocolsModule {}
