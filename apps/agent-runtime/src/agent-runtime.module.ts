import { Module } from '@nestjs/common';
import { AgentModule } from '@fed/agent';

// Takes agent turns from the run queue and appends their chunks to the run stream (no public API); shared host.
@Module({ imports: [AgentModule] })
export class AgentRuntimeModule {}
