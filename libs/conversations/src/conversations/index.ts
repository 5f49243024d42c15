export { ArchiveRetentionJob } from './archive-retention.job';
export { ConversationsModule } from './conversations.module';
export {
  AGENT_ID_HEADER,
  type ConversationOwner,
  ConversationOwners,
  MARKETPLACE_AGENTS,
  type MarketplaceAgentLookup,
  type MarketplaceAgentRef,
  Owner,
  ownerOf,
} from '../conversation-owner';
export { ConversationsService, conversationsServiceFor } from './conversations.service';
