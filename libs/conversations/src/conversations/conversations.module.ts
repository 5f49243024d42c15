import { LOGGER, type Logger } from '@fed/observability';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { conversationEntities } from '../storage';
import { ArchiveRetentionJob } from './archive-retention.job';
import { ConversationsController } from './conversations.controller';
import { ConversationsService, conversationsServiceFor } from './conversations.service';

/** Conversation management of document 2: list, messages, rename, delete, restore, archive. */
@Module({
  imports: [TypeOrmModule.forFeature(conversationEntities)],
  controllers: [ConversationsController],
  providers: [
    {
      provide: ConversationsService,
      // Required: without the store a deleted conversation's deliverable blobs would be left behind unseen.
      inject: [DataSource, LOGGER, BLOB_STORE],
      useFactory: (dataSource: DataSource, logger: Logger, store: BlobStore) =>
        conversationsServiceFor(dataSource, { blobs: { store, logger } }),
    },
    ArchiveRetentionJob,
  ],
  exports: [ConversationsService],
})
export class ConversationsModule {}
