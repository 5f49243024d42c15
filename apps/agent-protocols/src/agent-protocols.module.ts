import { Module } from '@nestjs/common';
import { A2aModule, McpModule } from '@fed/protocols';

// A2A and MCP endpoints of document 3 and the agent card, over the chat turn pipeline (libs/protocols).
// The host (config, logging, health, database, bus, auth) is shared.
@Module({
  imports: [A2aModule, McpModule],
})
export class AgentProtocolsModule {}
