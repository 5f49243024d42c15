import { Module } from '@nestjs/common';

// A2A and MCP endpoints of document 3 and the agent card.
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({})
export class AgentProtocolsModule {}
