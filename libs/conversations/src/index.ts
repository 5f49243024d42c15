export * from './storage';
export * from './conversations';
export * from './turns/turns.module';
export { TurnStarterModule, type TurnStarterSources } from './turns/turn-starter.module';
export {
  RUN_STREAM_RETRY_MS,
  RUN_STREAM_UNREACHABLE_LIMIT_MS,
  endedWithoutFinalChunk,
  writeOrWait,
} from './turns/sse-relay';
export * from './ledger';
export { TurnReaper } from './turns/turn-reaper';
export { type StartedTurn, type TurnInProgress, TurnStarter } from './turns/turn-starter';
export { TURN_LIBRARY, type TurnLibrary, type TurnLibraryFile } from './turns/turn-library.port';
export * from './files';
export * from './ui-resources';
export * from './deliverables';
export * from './search';
export {
  ConversationReads,
  type ConversationRecords,
  type DeliverableLookup,
  type StoredDeliverable,
  type StoredMessage,
  type StoredTask,
} from './conversations/conversation-reads';
