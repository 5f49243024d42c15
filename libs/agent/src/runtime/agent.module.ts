import { Module } from '@nestjs/common';

/** The agent: takes turns from the run queue, calls models through llm-gateway, runs tools, streams chunks. */
@Module({})
export class AgentModule {}
