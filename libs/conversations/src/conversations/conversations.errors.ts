import { domainErrors } from '@fed/contracts';

/** A refused conversation operation (list, history, rename, archive, restore, delete); the message is safe to show. */
export class ConversationsError extends domainErrors({
  conversation_not_found: 'conversation_not_found',
  conversation_archived: 'conversation_archived',
  conversation_processing: 'conversation_processing',
  invalid_cursor: 'invalid_cursor',
}) {}

export type ConversationsErrorCode = ConversationsError['code'];
