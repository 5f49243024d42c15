import { Module } from '@nestjs/common';

// Worker that takes agent turns from the run queue and appends their chunks to the run stream (no public API).
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({})
export class AgentRuntimeModule {}
