import { Module } from '@nestjs/common';
import { AgentModule } from '@fed/agent';

// Worker that takes agent turns from the run queue and appends their chunks to the run stream (no public API).
// The host (config, logging, health, database, bus, auth) is shared.
@Module({ imports: [AgentModule] })
export class AgentRuntimeModule {}
