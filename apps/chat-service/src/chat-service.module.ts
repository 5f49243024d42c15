import { Module } from '@nestjs/common';

// Chat, conversation and file APIs of document 2, streaming agent turns as server-sent events.
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({})
export class ChatServiceModule {}
