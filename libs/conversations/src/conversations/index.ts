export { ArchiveRetentionJob } from './archive-retention.job';
export { ConversationsModule } from './conversations.module';
export { type ConversationOwner, ownerOf } from '../conversation-owner';
export { ConversationsService, conversationsServiceFor } from './conversations.service';
