export { ArchiveRetentionJob } from './archive-retention.job';
export { ConversationsModule } from './conversations.module';
export { type ConversationOwner } from './conversations.repository';
export { ConversationsService, conversationsServiceFor } from './conversations.service';
