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
      inject: [DataSource, LOGGER, { token: BLOB_STORE, optional: true }],
      useFactory: (dataSource: DataSource, logger: Logger, store: BlobStore | undefined) =>
        conversationsServiceFor(dataSource, store ? { blobs: { store, logger } } : {}),
    },
    ArchiveRetentionJob,
  ],
  exports: [ConversationsService],
})
export class ConversationsModule {}
