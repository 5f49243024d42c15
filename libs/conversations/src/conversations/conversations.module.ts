import { Module } from '@nestjs/common';

/** Conversation management of document 2: list, messages, rename, delete, restore, archive. */
@Module({})
export class ConversationsModule {}
