// The public surface: modules, services and their factories, signature types and errors; internals stay inside.

export { ConversationsModule } from './conversations/conversations.module';
export { DeliverablesModule } from './deliverables/deliverables.module';
export { FilesModule, filesServiceFor } from './files/files.module';
export { SearchModule } from './search/search.module';
export { TurnsModule } from './turns/turns.module';
export { TurnStarterModule, type TurnStarterSources } from './turns/turn-starter.module';
export { UiResourcesModule, UiResourcesStoreModule } from './ui-resources/ui-resources.module';

export {
  AGENT_ID_HEADER,
  type ConversationOwner,
  MARKETPLACE_AGENTS,
  type MarketplaceAgentLookup,
  type MarketplaceAgentRef,
  ownerOf,
} from './conversation-owner';
export { OwnerError, type OwnerErrorCode } from './conversation-owner.errors';

export {
  ConversationsService,
  type ConversationsServiceOptions,
  conversationsServiceFor,
} from './conversations/conversations.service';
export { ConversationsError, type ConversationsErrorCode } from './conversations/conversations.errors';
export { ArchiveRetentionJob } from './conversations/archive-retention.job';
export {
  ConversationReads,
  type ConversationRecords,
  type DeliverableLookup,
  type StoredDeliverable,
  type StoredMessage,
  type StoredTask,
} from './conversations/conversation-reads';

export { DELIVERABLE_PATH, MAX_DELIVERABLE_PATH, deliverablePathProblem } from './deliverables/deliverable-path';
export { DeliverablesError, type DeliverablesErrorCode } from './deliverables/deliverables.errors';

export { type FilesOptions, FilesService, type SweepResult } from './files/files.service';
export { type FilesSweepResult, FilesSweepJob } from './files/files-sweep.job';
export { FilesError, type FilesErrorCode } from './files/files.errors';

export { type SearchConfig, searchConfigOf } from './search/search-language';
export { SearchError, type SearchErrorCode } from './search/search.errors';

// The turn's path: the starter admits it, the runtime works it through the ledger, the relay streams it.
export { type StartedTurn, type TurnInProgress, TurnStarter } from './turns/turn-starter';
export { TurnReaper } from './turns/turn-reaper';
export { TurnsError, type TurnsErrorCode } from './turns/turns.errors';
export { TURN_LIBRARY, type TurnLibrary, type TurnLibraryFile } from './turns/turn-library.port';
export {
  RUN_STREAM_RETRY_MS,
  RUN_STREAM_UNREACHABLE_LIMIT_MS,
  endedWithoutFinalChunk,
  writeOrWait,
} from './turns/sse-relay';
export { DEFAULT_TURN_OPTIONS, TurnLedger } from './ledger/turn-ledger';
export type {
  ClaimedTurn,
  DeliverableRecord,
  HistoryMessage,
  LiveTurn,
  SavedDeliverable,
  TaskRecord,
  TurnEnd,
  TurnFile,
  TurnHeartbeat,
} from './ledger/claimed-turn';
export type { MessageFile, PendingInteraction, Sender, TurnError, TurnOptions } from './storage/message.entity';

export { UiResourcesService } from './ui-resources/ui-resources.service';
export { UiResourcesError, type UiResourcesErrorCode } from './ui-resources/ui-resources.errors';
export { UI_HTML_MAX_BYTES, type UiResourceRecord, isToolCallId } from './ui-resources/ui-resource-record';
export {
  EXTERNAL_UI_SOURCE,
  type ExternalUiContent,
  type ExternalUiReference,
  type ExternalUiSource,
  ExternalUiGoneError,
  ExternalUiTooLargeError,
  ExternalUiUnavailableError,
} from './ui-resources/external-ui-source.port';

// The data source of every process that touches the conversations schema needs the entity list.
export { conversationEntities } from './storage';
